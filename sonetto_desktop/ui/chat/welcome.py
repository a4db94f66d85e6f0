"""First run without a model: a welcome panel that leads to the settings (the wall works offline)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from ..widgets.icons import icon


class WelcomePanel(QWidget):
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WelcomePanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        column = QVBoxLayout(self)
        column.setContentsMargins(40, 40, 40, 40)
        column.setSpacing(14)
        column.addStretch(1)
        logo = QLabel(self)
        logo.setPixmap(icon("app").pixmap(72, 72))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel(self.tr("你好，我是 Sonetto"), self)
        title.setObjectName("WelcomeTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text = QLabel(
            self.tr(
                "我会记住我们聊过的事，下次见面时还记得你。\n"
                "开始聊天前，请先在设置里填写一个模型服务（OpenAI、DeepSeek、通义千问，"
                "或本机的 Ollama / LM Studio）。\n右边的记忆墙现在就可以用。"
            ),
            self,
        )
        text.setObjectName("WelcomeText")
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # white like the text of #PrimaryButton (app.qss.tmpl): a grey icon vanishes on the accent
        self.settings_button = QPushButton(icon("settings", "#ffffff"), self.tr("打开设置"), self)
        self.settings_button.setObjectName("PrimaryButton")
        self.settings_button.clicked.connect(self.settings_requested)
        for widget in (logo, title, text):
            column.addWidget(widget)
        column.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignCenter)
        column.addStretch(2)
