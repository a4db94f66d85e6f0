"""The settings page of the PostgreSQL backend ("多设备"): server URL, password (kept in the
keyring, never in the URL), TLS, the memory library's name on the server, this computer's name,
chat sessions on the server, and a test button. The settings dialog adds it as a tab; the backend
itself is chosen with the dialog's 存储方式 combo box (``add_backend_choice``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.presentation.i18n import filled
from sonetto_desktop.presentation.server_words import failure_reason
from sonetto_desktop.memory.stores.postgres.location import default_device_name, split_password

from ..widgets.deferred import alive
from ..widgets.owner import Owner
from ..widgets.tasks import task_scope
from ..widgets.tooltips import plain_tooltip
from ..memory_service import call
from ...ops import Failed


class PostgresPage(QWidget):
    connection_checked = Signal(object)  # postgres_setup.ConnectionCheck
    _dialog = Owner()  # the settings dialog, held weakly: the page and its dialog form no reference cycle (widgets/owner.py)

    def __init__(self, dialog: Any) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._tasks = task_scope(self, "postgres-page")  # cancelled when the page goes
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        self.last_check = None
        intro = QLabel(self.tr(
            "在几台电脑上使用同一份记忆：记忆保存在你指定的 PostgreSQL 服务器上（家里 NAS 上的 Docker、"
            "或托管的云数据库），每台电脑上的改动会立刻出现在其他电脑上。注意：记忆将存放在该服务器上，"
            "请只使用你信任的服务器。"), self)
        intro.setWordWrap(True)
        intro.setObjectName("HintLabel")
        self.url = QLineEdit(self)
        self.url.setPlaceholderText("postgresql://sonetto@192.168.1.10:5432/sonetto")
        self.url.editingFinished.connect(self._take_password_from_url)
        self.password = QLineEdit(self)
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText(self.tr("保存在系统钥匙串中，不写进设置文件"))
        self.tls = QComboBox(self)
        for value, label in (("prefer", self.tr("自动（服务器支持就加密）")), ("require", self.tr("必须加密")),
                             ("verify-full", self.tr("加密并校验服务器证书")), ("disable", self.tr("不加密（仅限本机/内网）"))):
            self.tls.addItem(label, value)
        self.schema = QLineEdit(self)
        self.schema.setPlaceholderText("sonetto")
        self.schema.setToolTip(self.tr("同一个数据库里可以放几个人的记忆，各用一个名字（小写字母、数字、下划线）。"))
        self.device = QLineEdit(self)
        self.device.setPlaceholderText(default_device_name())
        self.sessions = QCheckBox(self.tr("聊天记录也保存在服务器上（换一台电脑可以接着聊）"), self)
        self.test_button = QPushButton(self.tr("测试服务器连接"), self)
        self.test_button.clicked.connect(lambda: self._tasks.spawn(self.test_connection(), name="test-server"))
        self.result = QLabel(self)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.result, 1)
        hint = QLabel(self.tr(
            "在“记忆”页把存储方式选为 PostgreSQL 后保存即可。服务器上还没有记忆时，本机的记忆（含历史和回收站）"
            "会完整迁移过去；以后切换回本地存储时，服务器上的记忆会复制回本机（服务器上的仍然保留）。"
            "服务器连不上时，应用用本机副本只读打开，聊天照常，新记忆等服务器恢复后自动写入。"), self)
        hint.setWordWrap(True)
        hint.setObjectName("HintLabel")
        form = QFormLayout(self)
        form.addRow(intro)
        form.addRow(self.tr("服务器地址"), self.url)
        form.addRow(self.tr("密码"), self.password)
        form.addRow(self.tr("加密（TLS）"), self.tls)
        form.addRow(self.tr("记忆库名称"), self.schema)
        form.addRow(self.tr("本机名称"), self.device)
        form.addRow("", self.sessions)
        form.addRow(row)
        form.addRow(hint)

    def title(self) -> str:
        return self.tr("多设备")

    @staticmethod
    def add_backend_choice(combo: QComboBox) -> None:
        combo.addItem(QCoreApplication.translate("PostgresPage", "PostgreSQL（多设备）"), "postgres")

    def load(self, settings: Settings) -> None:
        bare, in_url = split_password(settings.postgres_url)  # never show a password written into the address
        self.url.setText(bare)
        from_file = "postgres_url" not in settings.env_overridden  # an environment's stays the environment's
        self.password.setText(settings.postgres_password or (in_url if from_file else ""))
        self.tls.setCurrentIndex(max(self.tls.findData(settings.postgres_tls), 0))
        self.schema.setText("" if settings.postgres_schema == "sonetto" else settings.postgres_schema)
        self.device.setText(settings.device_name)
        self.sessions.setChecked(settings.postgres_sessions)
        if "postgres_url" in settings.env_overridden:
            self.url.setEnabled(False)
            self.url.setToolTip(self.tr("由环境变量 SONETTO_POSTGRES_URL 设置"))

    def values(self) -> dict[str, Any]:
        """The page's fields as Settings values (the URL without a password pasted into it)."""
        self._take_password_from_url()
        values: dict[str, Any] = {"postgres_password": self.password.text(), "postgres_tls": self.tls.currentData(),
                                  "postgres_schema": self.schema.text().strip() or "sonetto",
                                  "device_name": self.device.text().strip(),
                                  "postgres_sessions": self.sessions.isChecked()}
        if self.url.isEnabled():
            values["postgres_url"] = self.url.text().strip()
        return values

    def _take_password_from_url(self) -> None:
        bare, password = split_password(self.url.text())
        if password:
            self.url.setText(bare)
            self.password.setText(password)

    async def test_connection(self) -> None:
        """Connect once with the page's values (in a worker thread) and say what happened."""
        from sonetto_desktop.postgres_setup import check_connection

        settings = self._dialog.current_settings()
        self.test_button.setEnabled(False)
        self.result.setText(self.tr("正在连接…"))
        self.result.setToolTip("")
        checked = await call(check_connection, settings)
        if not alive(self):  # the page may have been closed and deleted meanwhile
            return
        self.test_button.setEnabled(True)
        if isinstance(checked, Failed):
            self.result.setText("✗ " + checked.message)
            return
        check = checked.value
        self.last_check = check
        self.result.setText(self.checked_text(check))
        self.result.setToolTip(plain_tooltip(check.detail))  # the exact words (the library's or the server's), as written
        self.connection_checked.emit(check)

    def checked_text(self, check: Any) -> str:
        """A connection test's outcome (``postgres_setup.ConnectionCheck``) in the UI's language: what
        failed is said from its ``words`` (libpq's or the server's own words are the tooltip's)."""
        if check.ok:
            text = (self.tr("连接成功：PostgreSQL %1（TLS 加密），%2，用时 %3 毫秒。") if check.tls
                    else self.tr("连接成功：PostgreSQL %1（未加密），%2，用时 %3 毫秒。"))
            count = (self.tr("已有 %Ln 条记忆", "", check.memories) if check.memories is not None
                     else self.tr("记忆库尚未建立（首次使用时会自动创建）"))
            return "✓ " + filled(text, check.server_version, count, f"{check.millis:.0f}")
        kind, values = (check.words[0], check.words[1:]) if check.words else ("failed", ())
        return "✗ " + failure_reason(kind, *values)
