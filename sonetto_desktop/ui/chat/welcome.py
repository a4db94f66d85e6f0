"""First run without a model: a welcome panel that leads to the settings (the wall works offline), and
to what a person may already have: a SonettoHere ``memory.yaml`` or another app's memories file (导入记忆,
offline), chats exported from ChatGPT, Claude, DeepSeek… (导入聊天记录: read and previewed now, written
once a model is set)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ..i18n import ui_language
from ..widgets.focus import enter_clicks
from ..widgets.icons import icon


class WelcomePanel(QWidget):
    settings_requested = Signal()
    import_requested = Signal()  # 导入记忆…
    history_import_requested = Signal()  # 导入聊天记录…
    language_requested = Signal(str)  # "English" / "中文": the UI in the other language, from the first screen

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
        already = QLabel(self.tr("已经有记忆或聊天记录？"), self)
        already.setObjectName("WelcomeText")
        already.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.import_button = QPushButton(self.tr("导入记忆文件…"), self)
        self.import_button.setToolTip(self.tr("SonettoHere 的 memory.yaml，或导出的记忆文件（YAML、JSON、Markdown）"))
        self.import_button.clicked.connect(self.import_requested)
        self.history_button = QPushButton(self.tr("导入聊天记录…"), self)
        self.history_button.setToolTip(self.tr("ChatGPT、Claude、DeepSeek 等导出的聊天记录：现在就能读取和预览，设置好模型后写成记忆"))
        self.history_button.clicked.connect(self.history_import_requested)
        links = QHBoxLayout()
        links.setSpacing(8)
        links.addStretch(1)
        for button in (self.import_button, self.history_button):
            button.setObjectName("WelcomeLink")
            button.setFlat(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            links.addWidget(button)
        links.addStretch(1)
        # the other language, named in itself (a person who cannot read this one can still read that)
        other = "zh_CN" if ui_language() == "en" else "en"
        self.language_button = QPushButton("中文" if other == "zh_CN" else "English", self)
        self.language_button.setObjectName("WelcomeLink")
        self.language_button.setFlat(True)
        self.language_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.language_button.setAccessibleName("界面语言：中文" if other == "zh_CN" else "Interface language: English")
        self.language_button.clicked.connect(lambda: self.language_requested.emit(other))
        enter_clicks(self.settings_button, self.import_button, self.history_button, self.language_button)
        for widget in (logo, title, text):
            column.addWidget(widget)
        column.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignCenter)
        column.addSpacing(18)
        column.addWidget(already)
        column.addLayout(links)
        column.addStretch(2)
        column.addWidget(self.language_button, 0, Qt.AlignmentFlag.AlignCenter)
