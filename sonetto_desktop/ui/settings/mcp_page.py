"""The settings page "其他应用": other AI apps (Claude Desktop, Cursor, Cherry Studio…) using the
memories through the local MCP server (``sonetto mcp``): on/off, read-only, the allowed apps, the
HTTP port and tokens (the shared one, which can be switched off once apps have their own, and one
per app: ``mcp_server.app_tokens``), and the configuration to paste into each app. The settings dialog adds it as a tab and takes its
``values()``; the tokens live in secret storage, read and made off the Qt thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from sonetto_desktop.config.secrets import mcp_token, new_mcp_token
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.mcp_server import clients_seen
from sonetto_desktop.mcp_server.access import allowed_clients, client_label
from sonetto_desktop.mcp_server.app_tokens import AppTokensUnreadable, app_tokens, new_app_token, revoke_app_token
from sonetto_desktop.mcp_server.snippets import http_snippet, launch_command, launch_env, stdio_snippet
from ..widgets.tasks import task_scope
from ..memory_service import call
from ...ops import Failed


def _token_command_clients() -> tuple[dict[str | None, str], str, tuple[str, list[str]], list[str]]:
    """The tokens (None: the shared one), why the apps' tokens cannot be read ("" when they can), the
    launch command and the apps seen. Keyring / files and a PATH search: a worker thread's job."""
    tokens: dict[str | None, str] = {None: mcp_token()}
    try:
        tokens.update(app_tokens())
        problem = ""
    except AppTokensUnreadable as exc:  # the server refuses declared names meanwhile; making one repairs it
        problem = str(exc)
    return tokens, problem, launch_command(), [name for name, _when in clients_seen.load()]


class McpPage(QWidget):
    """Built in three parts: who may use the memories (:meth:`_build_access`), the HTTP port and
    tokens (:meth:`_build_tokens`) and the configuration to paste into an app (:meth:`_build_snippet`)."""

    def __init__(self, dialog: Any) -> None:
        super().__init__(dialog)
        self._command: tuple[str, list[str]] = ("sonetto", ["mcp"])
        self._env: dict[str, str] = {}
        self._tokens: dict[str | None, str] = {}
        self._token_asked = False
        self._tasks = task_scope(self, "mcp-page")  # cancelled when the page goes
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        form = QFormLayout(self)
        self._build_access(form)
        self._build_tokens(form)
        self._build_snippet(form)
        self.enabled.toggled.connect(self._update_enabled)

    def _build_access(self, form: QFormLayout) -> None:
        intro = QLabel(self.tr(
            "让其他 AI 应用（Claude Desktop、Cursor、Cherry Studio 等）通过 MCP 使用你的记忆。服务只在这台电脑上运行；"
            "它们做的每个修改都记在历史里（修改者显示为 mcp:应用名），可以撤销。锁定的记忆和“不要记住”列表同样有效。"
            "注意：应用名称是应用连接时自己报上的名字，并不能证明它是谁；要让“允许的应用”和修改记录确实按应用区分，"
            "请用 HTTP 方式并给每个应用一个自己的令牌。"), self)
        intro.setWordWrap(True)
        intro.setObjectName("HintLabel")
        self.enabled = QCheckBox(self.tr("允许其他应用使用我的记忆"), self)
        self.read_only = QCheckBox(self.tr("只读：其他应用只能查找和查看，不能修改"), self)
        self.allowed = QLineEdit(self)
        self.allowed.setPlaceholderText(self.tr("留空表示所有应用；多个用逗号分隔，如 Cursor, Cherry Studio"))
        self.allowed.setToolTip(self.tr("应用名称是它连接时自己报上的名字（用应用令牌时是令牌所属的应用），不区分大小写。"))
        self.seen = _hint(self, selectable=True)
        form.addRow(intro)
        form.addRow("", self.enabled)
        form.addRow("", self.read_only)
        form.addRow(self.tr("允许的应用"), self.allowed)
        form.addRow("", self.seen)

    def _build_tokens(self, form: QFormLayout) -> None:
        self.port = QSpinBox(self)
        self.port.setRange(1024, 65535)
        self.token_owner = QComboBox(self)
        self.token_owner.setToolTip(self.tr("共用令牌：应用以它自己报上的名字记录和判断。应用令牌：用这个令牌连接的就是这个应用。"))
        self.token_owner.addItem(self.tr("共用令牌"), None)
        self.token_owner.currentIndexChanged.connect(self._show_token)
        self.token = QLineEdit(self)
        self.token.setReadOnly(True)
        self.token.setPlaceholderText(self.tr("正在读取…"))
        self.copy_token_button = QPushButton(self.tr("复制令牌"), self)
        self.copy_token_button.clicked.connect(lambda: self._copy(self.token.text()))
        self.new_token_button = QPushButton(self.tr("重新生成"), self)
        self.new_token_button.setToolTip(self.tr("旧令牌立即失效，使用 HTTP 的应用需要换上新令牌。"))
        self.new_token_button.clicked.connect(lambda: self._tasks.spawn(self.regenerate_token(), name="mcp-new-token"))
        self.app_name = QLineEdit(self)
        self.app_name.setPlaceholderText(self.tr("应用名称，如 Cursor"))
        self.add_app_token_button = QPushButton(self.tr("生成应用令牌"), self)
        self.add_app_token_button.clicked.connect(
            lambda: self._tasks.spawn(self.add_app_token(self.app_name.text()), name="mcp-app-token"))
        self.revoke_button = QPushButton(self.tr("撤销应用令牌"), self)
        self.revoke_button.setToolTip(self.tr("所选应用的令牌立即失效。"))
        self.revoke_button.clicked.connect(lambda: self._tasks.spawn(self.revoke_app_token(), name="mcp-revoke"))
        self.tokens_problem = _hint(self, selectable=True)
        self.tokens_problem.setVisible(False)
        self.shared_token = QCheckBox(self.tr("允许用共用令牌连接（HTTP）"), self)
        self.shared_token.setToolTip(self.tr(
            "给应用生成自己的令牌后才能关掉它：之后只有持应用令牌的应用能通过 HTTP 连接，修改记录里的应用名就确实是它。"))
        self.shared_token.toggled.connect(self._update_enabled)
        self.shared_hint = _hint(self)
        form.addRow(self.tr("HTTP 端口"), self.port)
        form.addRow(self.tr("HTTP 令牌"), _row(self.token_owner, (self.token, 1), self.copy_token_button,
                                            self.new_token_button))
        form.addRow(self.tr("应用令牌"), _row((self.app_name, 1), self.add_app_token_button, self.revoke_button))
        form.addRow("", self.tokens_problem)
        form.addRow("", self.shared_token)
        form.addRow("", self.shared_hint)

    def _build_snippet(self, form: QFormLayout) -> None:
        self.client = QComboBox(self)
        for value, label in (("claude", "Claude Desktop"), ("cursor", "Cursor"), ("cherry", "Cherry Studio")):
            self.client.addItem(label, value)
        self.transport = QComboBox(self)
        self.transport.addItem(self.tr("由应用启动（推荐）"), "stdio")
        self.transport.addItem(self.tr("HTTP（先运行 sonetto mcp --http）"), "http")
        self.snippet = QPlainTextEdit(self)
        self.snippet.setReadOnly(True)
        self.snippet.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.snippet.setMinimumHeight(140)
        self.where = _hint(self, selectable=True)
        self.copy_snippet_button = QPushButton(self.tr("复制配置"), self)
        self.copy_snippet_button.clicked.connect(lambda: self._copy(self.snippet.toPlainText()))
        for signal in (self.client.currentIndexChanged, self.transport.currentIndexChanged, self.port.valueChanged):
            signal.connect(self._update_snippet)
        form.addRow(self.tr("配置"), _row((self.client, 1), (self.transport, 1)))
        form.addRow(self.snippet)
        form.addRow(self.where)
        form.addRow("", self.copy_snippet_button)

    def title(self) -> str:
        return self.tr("其他应用")

    def load(self, settings: Settings) -> None:
        self.enabled.setChecked(settings.mcp_enabled)
        self.read_only.setChecked(settings.mcp_read_only)
        self.allowed.setText(", ".join(allowed_clients(settings.mcp_allowed_clients)))
        self.port.setValue(settings.mcp_http_port)
        self.shared_token.setChecked(settings.mcp_shared_token)
        self._env = launch_env(settings.resolved_data_dir())
        self._update_enabled()
        self._update_snippet()

    def values(self) -> dict[str, Any]:
        return {"mcp_enabled": self.enabled.isChecked(), "mcp_read_only": self.read_only.isChecked(),
                "mcp_allowed_clients": ", ".join(allowed_clients(self.allowed.text())),
                "mcp_http_port": self.port.value(), "mcp_shared_token": self.shared_token.isChecked()}

    # ── token and snippets ────────────────────────────────────────────

    def showEvent(self, event: QShowEvent) -> None:
        """The token is read (and made, the first time) when the page is first shown."""
        super().showEvent(event)
        if not self._token_asked:
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # no event loop runs the dialog (a bare widget): nothing to fetch with
                return
            self._token_asked = True
            self._tasks.spawn(self.refresh_token(), name="mcp-token")

    async def refresh_token(self) -> None:
        """Read the tokens (the shared one made on first use), where ``sonetto`` is and which apps
        have connected."""
        read = await call(_token_command_clients)
        if isinstance(read, Failed):
            self._say_failed(read)
            return
        tokens, problem, self._command, seen = read.value
        self._set_tokens(tokens, self.token_owner.currentData())
        self._show_tokens_problem(problem)
        self.seen.setText(self.tr("连接过的应用：%1").replace("%1", ", ".join(seen)) if seen else
                          self.tr("还没有应用连接过。"))

    def _set_tokens(self, tokens: dict[str | None, str], owner: str | None) -> None:
        """Offer ``tokens`` (None: the shared one) and show ``owner``'s."""
        self._tokens = tokens
        self.token_owner.blockSignals(True)
        while self.token_owner.count() > 1:
            self.token_owner.removeItem(1)
        for app in tokens:
            if app is not None:
                self.token_owner.addItem(app, app)
        index = self.token_owner.findData(owner) if owner is not None else 0
        self.token_owner.setCurrentIndex(max(index, 0))
        self.token_owner.blockSignals(False)
        self._show_token()
        self._update_enabled()

    def _show_token(self) -> None:
        owner = self.token_owner.currentData()
        self.token.setText(self._tokens.get(owner, ""))
        self.revoke_button.setEnabled(self.enabled.isChecked() and owner is not None)
        self._update_snippet()

    async def regenerate_token(self) -> None:
        """A new token for the one shown (the shared one, or the selected app's)."""
        owner = self.token_owner.currentData()
        self.new_token_button.setEnabled(False)
        made = await (call(new_mcp_token) if owner is None else call(new_app_token, owner))
        self.new_token_button.setEnabled(True)
        if isinstance(made, Failed):
            self._say_failed(made)
            return
        token = made.value
        self._set_tokens({**self._tokens, owner: token}, owner)

    async def add_app_token(self, name: str) -> None:
        """A token of ``name``'s own (a new one if it had one), shown and put in the snippet. Made over
        damaged tokens, it replaces them (the apps that had one need a new one too)."""
        if not name.strip():
            return
        app = client_label(name)
        made = await call(new_app_token, app)
        if isinstance(made, Failed):
            self._say_failed(made)
            return
        token = made.value
        self.app_name.clear()
        self._set_tokens({**self._tokens, app: token}, app)
        self._show_tokens_problem("")

    def _say_failed(self, failed: Failed) -> None:
        """A token that could not be read, made or revoked (the keyring or the file): said under the tokens."""
        self.tokens_problem.setText(failed.message)
        self.tokens_problem.setVisible(True)

    def _show_tokens_problem(self, problem: str) -> None:
        """Say that the apps' tokens cannot be read, what that means and how to repair it ("": all is well)."""
        self.tokens_problem.setText(self.tr(
            "应用令牌无法读取：在重新生成之前，用共用令牌或 stdio 连接的应用都会被拒绝，持旧应用令牌的应用也无法连接。"
            "请为每个应用重新生成令牌。") + f"\n{problem}" if problem else "")
        self.tokens_problem.setVisible(bool(problem))

    async def revoke_app_token(self) -> None:
        owner = self.token_owner.currentData()
        if owner is None:
            return
        revoked = await call(revoke_app_token, owner)
        if isinstance(revoked, Failed):
            self._say_failed(revoked)
            return
        self._set_tokens({k: v for k, v in self._tokens.items() if k != owner}, None)

    def _update_enabled(self) -> None:
        on = self.enabled.isChecked()
        for widget in (self.read_only, self.allowed, self.port, self.token, self.new_token_button,
                       self.copy_token_button, self.client, self.transport, self.snippet, self.copy_snippet_button,
                       self.token_owner, self.app_name, self.add_app_token_button):
            widget.setEnabled(on)
        self.revoke_button.setEnabled(on and self.token_owner.currentData() is not None)
        # Switched off only once an app has a token of its own (else no app could connect over HTTP);
        # switched on again at any time.
        self.shared_token.setEnabled(on and (self._has_app_tokens() or not self.shared_token.isChecked()))
        self._update_shared_hint()

    def _has_app_tokens(self) -> bool:
        return any(app is not None for app in self._tokens)

    def _update_shared_hint(self) -> None:
        """Says what switching the shared token off means (nothing while it is on)."""
        if self.shared_token.isChecked() or not self.enabled.isChecked():
            text = ""
        elif not self._has_app_tokens():
            text = self.tr("共用令牌已关闭，也没有应用令牌：现在没有应用能通过 HTTP 连接。")
        else:
            text = self.tr("共用令牌已关闭（保存后生效）：只有持应用令牌的应用能通过 HTTP 连接；stdio 方式不受影响。")
        self.shared_hint.setText(text)
        self.shared_hint.setVisible(bool(text))

    def _update_snippet(self) -> None:
        client = self.client.currentData()
        if self.transport.currentData() == "http":
            text = http_snippet(client, self.port.value(), self.token.text() or "…")
        else:
            text = stdio_snippet(client, *self._command, self._env)
        self.snippet.setPlainText(text)
        self.where.setText({
            "claude": self.tr("Claude Desktop：设置 → 开发者 → 编辑配置，把这段合并进 claude_desktop_config.json，然后重启 Claude。"),
            "cursor": self.tr("Cursor：把这段合并进 ~/.cursor/mcp.json（或项目里的 .cursor/mcp.json）。"),
            "cherry": self.tr("Cherry Studio：设置 → MCP 服务器 → 添加 → 从 JSON 导入，粘贴这段。"),
        }[client])

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)


def _hint(parent: QWidget, *, selectable: bool = False) -> QLabel:
    """A wrapped hint line of the page (empty until it is set)."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setObjectName("HintLabel")
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _row(*widgets: QWidget | tuple[QWidget, int]) -> QHBoxLayout:
    """Widgets side by side (``(widget, stretch)`` for one that takes the room left)."""
    row = QHBoxLayout()
    for widget in widgets:
        row.addWidget(*(widget if isinstance(widget, tuple) else (widget,)))
    return row
