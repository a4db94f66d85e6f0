"""SettingsDialog: every field of :class:`Settings`, a test-connection button and the data folder.

The dialog edits a copy; "保存" validates, writes it (``Settings.save``) and emits ``settings_saved``
with the new object — the app applies it (theme now, model now, store backend / data dir by
re-opening the services, which migrates the store without loss). Fields set by environment
variables are shown read-only with the variable's name under them. Test connection runs on the
event loop. Closing with unsaved changes asks first (``discard_guard``). The 模型 page's 服务商
picker fills the endpoint and its models, and offers a model server found on this computer on the
first run (``provider_picker.py``).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate, QLocale, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop.agent.recall_setup import INSTALLED
from sonetto_desktop.config.providers import PROVIDERS, Provider
from sonetto_desktop.config.settings import USER_NAME_MAX, Settings
from sonetto_desktop.memory.stores.backends import file_backends

from ..i18n import ui_language
from ..widgets.discard_guard import guard_reject
from ..widgets.deferred import alive
from ..widgets.icons import icon
from ..widgets.tooltips import plain_tooltip
from .mcp_page import McpPage
from .postgres_page import PostgresPage
from .provider_picker import ProviderPicker
from .recall_page import RecallPage
from .fields import env_variable, lock_to_env, retention_spin, scrolling, with_secret_toggle
from ..widgets.tasks import task_scope
from ..widgets.file_dialogs import translated
from ..memory_service import call
from ...ops import Failed


#: The settings dialog's height when the screen has room (px): its tallest pages (回忆, 其他应用) scroll.
OPEN_HEIGHT = 640


class SettingsDialog(QDialog):
    settings_saved = Signal(object)  # Settings
    connection_tested = Signal(object)  # ConnectionResult
    dont_remember_requested = Signal()  # "不要记住的内容…": the shell opens the list (it holds the services)

    def __init__(self, settings: Settings, parent: QWidget | None = None, *, save_path: Path | None = None,
                 builtin: Any = INSTALLED, bank: Any = None, providers: tuple[Provider, ...] = PROVIDERS,
                 find_local_servers: bool = False) -> None:
        """``builtin``: this installation's built-in embeddings model (default: what is installed;
        None: a platform without one) — the 回忆 page says what runs. ``bank``: gives the open
        store's recall listing (in a worker) for the 回忆 page's cost line (None: no store).
        ``providers``: the 服务商 picker's choices (``config/providers.py``). ``find_local_servers``:
        on the first showing with no address set (first run), ask the local providers' ports whether
        a model server runs there, in the background — the app asks for it when it opens the dialog
        (``AppDialogs.open_settings``); a dialog made on its own asks nothing of this computer."""
        super().__init__(parent)
        self.setWindowTitle(self.tr("设置"))
        self.setWindowIcon(icon("settings"))
        self.setMinimumWidth(520)
        self._original = settings
        self._tasks = task_scope(self, "settings-dialog")  # save / test: cancelled when the dialog goes
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        self._save_path = save_path
        self._providers = providers
        self._find_local = find_local_servers
        self.last_result = None

        # Every page with more than a few rows scrolls: the dialog is as tall as its tallest page's
        # minimum, and 其他应用 alone made it 642 px, its 保存 off a 600-px-high screen.
        tabs = QTabWidget(self)
        tabs.tabBar().setUsesScrollButtons(False)  # every page's name in sight (English ones are longer)
        self._tabs = tabs
        self._fitted = False
        scrolling(self._model_tab(), tabs, self.tr("模型"))
        scrolling(self._memory_tab(), tabs, self.tr("记忆"))
        self.recall_page = RecallPage(self, builtin=builtin, bank=bank)  # the recall budget and the embeddings model (own module)
        scrolling(self.recall_page, tabs, self.recall_page.title())
        self.postgres_page = PostgresPage(self)  # the multi-device backend's fields (its own module)
        scrolling(self.postgres_page, tabs, self.postgres_page.title())
        self.mcp_page = McpPage(self)  # other AI apps through the MCP server (its own module)
        scrolling(self.mcp_page, tabs, self.mcp_page.title())
        tabs.addTab(self._look_tab(), self.tr("外观"))
        self.error_label = QLabel(self)
        self.error_label.setObjectName("HintLabel")
        self.error_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setText(self.tr("保存"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("取消"))
        self.buttons.accepted.connect(lambda: self._tasks.spawn(self.save(), name="save-settings"))
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(tabs)
        column.addWidget(self.error_label)
        column.addWidget(self.buttons)
        self._load(settings)
        self._loaded = self.current_settings()  # what "unchanged" means for the discard question
        for changed in (self.base_url.textChanged, self.api_key.textChanged, self.model.currentTextChanged):
            changed.connect(self._endpoint_edited)

    # ── tabs ───────────────────────────────────────────────────────────

    def _model_tab(self) -> QWidget:
        page = QWidget(self)
        form = self._model_form = QFormLayout(page)
        self.user_name = QLineEdit(page)
        self.user_name.setObjectName("UserName")
        self.user_name.setMaxLength(USER_NAME_MAX)
        self.user_name.setPlaceholderText(self.tr("留空时 Sonetto 会从记忆里知道"))
        self.base_url = QLineEdit(page)
        self.base_url.setPlaceholderText("https://api.deepseek.com/v1 · http://127.0.0.1:11434/v1")
        self.api_key = QLineEdit(page)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(self.tr("本地模型可以留空"))
        self._api_key_row, self.show_key_button = with_secret_toggle(self.api_key, page)
        self.model = QComboBox(page)
        self.model.setEditable(True)
        self.model.lineEdit().setPlaceholderText("deepseek-flash · qwen-plus · qwen2.5:7b")
        # the 服务商 picker fills the three above (its own module); its line offers a server found here
        self.provider_picker = ProviderPicker(self, page, self._providers)
        self.provider = self.provider_picker.combo
        self.temperature = QDoubleSpinBox(page)
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.request_timeout = QDoubleSpinBox(page)
        self.request_timeout.setRange(1.0, 3600.0)
        self.request_timeout.setSuffix(self.tr(" 秒"))
        # How long a reply may take to start (a local model still loading needs more): the chat's
        # "did not start replying" message sends the person here.
        self.first_token_timeout = QDoubleSpinBox(page)
        self.first_token_timeout.setRange(1.0, 3600.0)
        self.first_token_timeout.setSuffix(self.tr(" 秒"))
        self.first_token_timeout.setToolTip(self.tr("模型多久没有开始回复就停止等待；本地模型加载慢时调大"))
        self.test_button = QPushButton(self.tr("测试连接"), page)
        self.test_button.clicked.connect(lambda: self._tasks.spawn(self.test_connection(), name="test-connection"))
        self.test_result = QLabel(page)
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)
        form.addRow(self.tr("你希望 Sonetto 怎么称呼你"), self.user_name)
        self.provider_picker.place(form, self.tr("服务商"))
        form.addRow(self.tr("服务地址"), self.base_url)
        form.addRow(self.tr("API 密钥"), self._api_key_row)
        form.addRow(self.tr("模型"), self.model)
        form.addRow(self.tr("温度"), self.temperature)
        form.addRow(self.tr("请求超时"), self.request_timeout)
        form.addRow(self.tr("首字超时"), self.first_token_timeout)
        form.addRow(test_row)
        return page

    def _memory_tab(self) -> QWidget:
        page = QWidget(self)
        form = self._memory_form = QFormLayout(page)
        self.retrieval_mode = QComboBox(page)
        for value, label in (("hybrid", self.tr("混合（推荐）")), ("mechanical", self.tr("本地检索（快，不用模型）")),
                             ("llm", self.tr("模型检索"))):
            self.retrieval_mode.addItem(label, value)
        self.recall_timeout = QDoubleSpinBox(page)
        self.recall_timeout.setRange(0.5, 600.0)
        self.recall_timeout.setSuffix(self.tr(" 秒"))
        self.store_backend = QComboBox(page)
        for backend in file_backends():  # the registered file backends (memory/stores/backends.py)
            zh, en = backend.choice or (backend.label, backend.label)
            self.store_backend.addItem(en if ui_language() == "en" else zh, backend.name)
        PostgresPage.add_backend_choice(self.store_backend)
        self.backend_hint = QLabel(self.tr("切换后会把现有记忆（含历史和回收站）完整迁移过去，旧文件保留。"), page)
        self.backend_hint.setObjectName("HintLabel")
        self.backend_hint.setWordWrap(True)
        self.trash_retention = retention_spin(page)
        self.review_mode = QCheckBox(self.tr("Sonetto 的记忆变化先交给我审核（审核模式）"), page)
        self.review_mode.setObjectName("ReviewMode")
        self.dont_remember_button = QPushButton(self.tr("不要记住的内容…"), page)
        self.dont_remember_button.setObjectName("DontRememberButton")
        self.dont_remember_button.clicked.connect(self.dont_remember_requested)
        self.data_dir = QLineEdit(page)
        browse = QPushButton(icon("folder"), self.tr("选择…"), page)
        browse.clicked.connect(self._browse)
        self.open_folder_button = QPushButton(icon("folder"), self.tr("打开数据文件夹"), page)
        self.open_folder_button.clicked.connect(self.open_data_folder)
        self._dir_row = dir_row = QHBoxLayout()
        dir_row.addWidget(self.data_dir, 1)
        dir_row.addWidget(browse)
        form.addRow(self.tr("回忆方式"), self.retrieval_mode)
        form.addRow(self.tr("回忆超时"), self.recall_timeout)
        form.addRow(self.tr("存储方式"), self.store_backend)
        form.addRow("", self.backend_hint)
        form.addRow(self.tr("回收站保留"), self.trash_retention)
        form.addRow(self.tr("记忆写入"), self.review_mode)
        form.addRow("", self.dont_remember_button)
        self.data_dir_hint = QLabel(self.tr("换到还没有记忆的文件夹时，现在的记忆和聊天记录会复制过去（原来的文件夹保留不动）；"
                                            "换到已有记忆的文件夹时，使用那里的记忆。"), page)
        self.data_dir_hint.setObjectName("HintLabel")
        self.data_dir_hint.setWordWrap(True)
        form.addRow(self.tr("数据文件夹"), dir_row)
        form.addRow("", self.data_dir_hint)
        form.addRow("", self.open_folder_button)
        return page

    def _look_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        self.theme = QComboBox(page)
        for value, label in (("system", self.tr("跟随系统")), ("light", self.tr("浅色")), ("dark", self.tr("深色"))):
            self.theme.addItem(label, value)
        self.language = QComboBox(page)
        self.language.addItem("中文", "zh_CN")
        self.language.addItem("English", "en")
        form.addRow(self.tr("主题"), self.theme)
        form.addRow(self.tr("语言"), self.language)  # applied at once when saved: no restart
        return page

    # ── values ─────────────────────────────────────────────────────────

    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        index = combo.findData(value)
        combo.setCurrentIndex(max(index, 0))

    def _load(self, s: Settings) -> None:
        self.user_name.setText(s.user_name)
        self.trash_retention.setValue(round(s.trash_retention_days))
        self.review_mode.setChecked(bool(s.review_mode))
        self.base_url.setText(s.base_url)
        self.api_key.setText(s.api_key)
        self.model.setEditText(s.model)
        self.temperature.setValue(s.temperature)
        self.request_timeout.setValue(s.request_timeout)
        self.first_token_timeout.setValue(s.first_token_timeout)
        self._select(self.retrieval_mode, s.retrieval_mode)
        self.recall_timeout.setValue(s.recall_timeout)
        self._select(self.store_backend, s.store_backend)
        self.data_dir.setText(s.data_dir)
        self.data_dir.setPlaceholderText(str(s.resolved_data_dir()))
        self._select(self.theme, s.theme)
        self._select(self.language, s.language)
        self.postgres_page.load(s)
        self.mcp_page.load(s)
        self.recall_page.load(s)
        self.env_notes = {}
        for name in sorted(s.env_overridden):
            where = {"base_url": (self._model_form, self.base_url, self.base_url),
                     "api_key": (self._model_form, self._api_key_row, self.api_key),
                     "model": (self._model_form, self.model, self.model),
                     "data_dir": (self._memory_form, self._dir_row, self.data_dir)}.get(name)
            if where is not None:
                self.env_notes[name] = lock_to_env(*where, env_variable(name))
        self.provider_picker.load(s)
        locking = [name for name in ("base_url", "api_key") if name in s.env_overridden]
        if locking:  # choosing a provider would change what the environment sets
            self.provider_picker.lock(env_variable(locking[0]))

    def current_settings(self) -> Settings:
        """The settings as edited (environment-set fields unchanged)."""
        s = self._original
        values = {
            "temperature": round(self.temperature.value(), 2),
            "request_timeout": self.request_timeout.value(),
            "first_token_timeout": self.first_token_timeout.value(),
            "retrieval_mode": self.retrieval_mode.currentData(),
            "recall_timeout": self.recall_timeout.value(),
            "store_backend": self.store_backend.currentData(),
            "theme": self.theme.currentData(),
            "language": self.language.currentData(),
            "user_name": self.user_name.text().strip(),
            "trash_retention_days": float(self.trash_retention.value()),
            "review_mode": self.review_mode.isChecked(),
        }
        editable = {"base_url": self.base_url.text().strip(), "api_key": self.api_key.text().strip(),
                    "model": self.model.currentText().strip(), "data_dir": self.data_dir.text().strip()}
        values.update({k: v for k, v in editable.items() if k not in s.env_overridden})
        values.update(self.postgres_page.values())
        values.update(self.mcp_page.values())
        values.update(self.recall_page.values())
        return dataclasses.replace(s, **values)

    # ── actions ────────────────────────────────────────────────────────

    async def save(self) -> bool:
        """Validate, write (in a worker: file + keyring), emit ``settings_saved`` and close."""
        settings = self.current_settings()
        problems = settings.validate()
        if problems:
            use_en = ui_language() == "en"  # the dialog's language, not the one just picked (applied on save)
            self.error_label.setText("\n".join(p.en if use_en else p.zh for p in problems))
            return False
        self.buttons.setEnabled(False)
        saved = await call(settings.save, self._save_path)
        if alive(self):  # the dialog may have been closed and deleted meanwhile
            self.buttons.setEnabled(True)
        if isinstance(saved, Failed):
            if alive(self):
                self.error_label.setText(self.tr("无法保存设置：") + saved.detail)
            return False
        if not alive(self):
            return True
        self.settings_saved.emit(settings)
        self.accept()
        return True

    def _endpoint(self, settings: Settings) -> tuple[str, str, str]:
        """What a connection test is for: the address, the key and the model."""
        return settings.effective_base_url, settings.api_key, settings.model.strip()

    async def test_connection(self) -> None:
        """Try the endpoint the page shows (never raises); an answer for an address, key or model the
        page no longer shows (a slow server, the person moved on) is dropped."""
        from sonetto_desktop.agent.llm import test_connection

        settings = self.current_settings()
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("正在连接…"))
        self.test_result.setToolTip("")
        try:
            result = await test_connection(settings)
        finally:
            if alive(self):  # the dialog may have been closed and deleted meanwhile
                self.test_button.setEnabled(True)
        if not alive(self) or self._endpoint(self.current_settings()) != self._endpoint(settings):
            return
        if result.models:  # (before the result is shown: a change of the model field clears it)
            current = self.model.currentText()
            self.model.clear()
            self.model.addItems(result.models)
            self.model.setEditText(current)
        self.last_result = result
        mark = "⚠ " if result.warning else "✓ " if result.ok else "✗ "  # ⚠: connected, but no tool calls or retiring
        self.test_result.setText(mark + self.tested_text(result, settings.model.strip()))
        error = result.error
        self.test_result.setToolTip(plain_tooltip(error.detail) if error is not None else "")  # the server's or library's own words, as written
        self.connection_tested.emit(result)

    def tested_text(self, result: Any, model: str) -> str:
        """A connection test's outcome (``agent.llm.ConnectionResult``) for ``model`` in the UI's language
        (the server's or the library's own words are the tooltip's: ``LLMErrorInfo.detail``)."""
        if result.ok:
            text = self.tr("连接成功：模型“%1”可以使用（响应 %2 毫秒）。").replace("%1", model).replace(
                "%2", f"{result.latency_ms or 0:.0f}")
            if result.unlisted:
                text += self.tr("（它没有出现在服务的模型列表里，但能正常回答。）")
            text += self._tools_note(result.tools)
            if result.shutdown:
                text += "\n" + self.tr("服务商已公布：这个模型将于 %1 停用，之后就不能再用了。请在那之前换一个模型。").replace(
                    "%1", self._day(result.shutdown))
            return text
        if result.words:
            return (self.tr("接口地址应以 http:// 或 https:// 开头。") if result.words[0] == "bad_url"
                    else self.tr("请填写接口地址或 API Key。"))
        error = result.error
        text = self._failure_text(error.code if error is not None else result.code, error.model if error else "")
        if error is not None and error.status is not None:
            text += self.tr("（HTTP %1）").replace("%1", str(error.status))
        if error is not None and error.retry_after is not None and error.retry_after >= 1 and error.code in (
                "rate_limit", "server"):
            seconds = error.retry_after
            text += (self.tr("服务要求约 %1 分钟后再试。").replace("%1", str(math.ceil(seconds / 60))) if seconds >= 120
                     else self.tr("服务要求约 %1 秒后再试。").replace("%1", str(max(1, math.ceil(seconds)))))
        if error is not None and error.detail and error.code in ("server", "bad_response", "rate_limit", "refused"):
            text += self.tr("（服务说的原因见提示）")
        if result.code == "unknown_model" and result.models:
            names = self.tr("、").join(result.models[:10])
            if len(result.models) > 10:
                names = self.tr("%1等").replace("%1", names)
            text += "\n" + self.tr("服务上可用的模型：%1").replace("%1", names)
        return text

    def _failure_text(self, code: str, model: str) -> str:
        """What failed (``llm_errors.CODES``), in the UI's language."""
        if code == "unknown_model" and model:
            return self.tr("模型服务上找不到模型“%1”。请检查模型名称的拼写，或先在服务上下载/启用它。").replace("%1", model)
        if code == "unknown_model":
            return self.tr("模型服务上找不到这个模型。请检查模型名称的拼写，或先在服务上下载/启用它。")
        if code == "unconfigured":
            return self.tr("还没有配置模型。请在“设置”里填写接口地址、模型名称和 API Key（本地模型可不填 Key）。")
        if code == "unreachable":
            return self.tr("连不上模型服务。请检查接口地址是否正确、网络是否通畅，本地模型服务是否已经启动。")
        if code == "auth":
            return self.tr("模型服务拒绝了 API Key（认证失败）。请在“设置”里检查或重新填写 API Key。")
        if code == "rate_limit":
            return self.tr("请求太频繁，或账户额度/余额不足。请稍后再试，或检查账户额度。")
        if code == "server":
            return self.tr("模型服务内部出错了，请稍后再试。")
        if code == "timeout":
            return self.tr("模型服务响应超时。可以稍后再试，或在“设置”里调大超时时间。")
        if code == "refused":
            return self.tr("模型服务拒绝了这次请求。请检查 API 密钥是否正确、这个密钥能否使用该模型，以及服务端的设置。")
        if code == "empty_reply":
            return self.tr("模型返回了空回复（没有任何文字）。可以重试；如果经常这样，可能是模型的输出被服务端过滤或截断了，或者这个模型不适合对话。")
        if code == "tool_loop":
            return self.tr("模型反复调用工具，一直没有给出回答，已中止。换个说法再试一次；如果经常这样，可以换一个模型。")
        return self.tr("模型服务返回了无法理解的内容。请确认接口地址是 OpenAI 兼容的（通常以 /v1 结尾）。")

    def _tools_note(self, tools: str) -> str:
        """Whether the model calls tools (``agent.llm._probe_tools``), said after a good answer."""
        if tools == "calls":
            return self.tr("它也会调用工具（记忆写入靠工具调用）。")
        if tools == "text":
            return self.tr("但它没有调用工具，而是用文字回答：Sonetto 写记忆要靠工具调用（function calling），用这个模型时记忆不会被写入。请换一个支持工具调用的模型（llama.cpp 的服务需要加 --jinja 启动）。")
        if tools == "refused":
            return self.tr("但服务拒绝了带工具的请求：这个模型或服务不支持工具调用（function calling），用它时记忆不会被写入。")
        if tools == "unknown":
            return self.tr("（未能确认它是否支持工具调用。）")
        return ""

    def _day(self, text: str) -> str:
        """A ``YYYY-MM-DD`` date as the UI's language writes it (``2027年1月14日`` / ``14 January 2027``)."""
        day = QDate.fromString(text.strip(), "yyyy-MM-dd")
        if not day.isValid():
            return text
        return QLocale.c().toString(day, self.tr("yyyy年M月d日"))  # (the C locale's month names are English)

    def _endpoint_edited(self, *_: Any) -> None:
        """The address, the key or the model changed: a test's result was for the one before."""
        self.last_result = None
        if self.test_button.isEnabled():  # (a test under way keeps saying so; its answer is dropped)
            self.test_result.clear()
            self.test_result.setToolTip("")

    def dirty(self) -> bool:
        """Anything changed that closing would lose."""
        return self.current_settings() != self._loaded

    def show_page(self, page: QWidget) -> QScrollArea:
        """Bring the tab holding ``page`` (e.g. ``mcp_page``) to the front; its scroll area."""
        for i in range(self._tabs.count()):
            area = self._tabs.widget(i)
            if isinstance(area, QScrollArea) and area.widget() is page:
                self._tabs.setCurrentIndex(i)
                return area
        raise ValueError("not a page of this dialog")

    def showEvent(self, event: Any) -> None:
        if not self._fitted:  # once: later the person's own size stands
            self._fitted = True
            self._fit_to_screen()
            if self._find_local:  # first run: servers on this computer
                self.provider_picker.search_on_open(self._original)
        super().showEvent(event)

    def _fit_to_screen(self) -> None:
        """``OPEN_HEIGHT`` tall (what it opened at before its pages scrolled: the short pages are not
        stretched to the tallest one's ~1,000 px), within the screen's free height: on a small screen
        the pages scroll and 保存 stays on the screen."""
        hint = self.sizeHint()
        screen = self.screen() or QGuiApplication.primaryScreen()
        free = screen.availableGeometry().height() - 48 if screen is not None else OPEN_HEIGHT  # the title bar
        height = max(self.minimumSizeHint().height(), min(max(hint.height(), OPEN_HEIGHT), free))
        self.resize(max(self.width(), hint.width()), height)

    def reject(self) -> None:
        guard_reject(self, self.dirty, super().reject)

    def _browse(self) -> None:
        dialog = translated(QFileDialog(self, self.tr("选择数据文件夹"), self.data_dir.text() or self.data_dir.placeholderText()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.data_dir.setText)
        dialog.open()

    def data_folder(self) -> Path:
        return self.current_settings().resolved_data_dir()

    def open_data_folder(self) -> bool:
        folder = self.data_folder()
        folder.mkdir(parents=True, exist_ok=True)
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
