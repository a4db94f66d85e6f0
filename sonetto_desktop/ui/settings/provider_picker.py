"""The 模型 page's 服务商 picker (a part of the settings dialog) and the line under it that offers a
model server found running on this computer.

Choosing a provider fills 服务地址 and offers its models in 模型 (what the person typed stays when
it is one of them, else the first suggestion); a server on this computer is asked for its models.
Typing an address moves the picker to the provider it belongs to, or 自定义 (``config/providers.py``).
A key is never sent to another server: when the chosen provider's server is not the one the key
was entered for, the key field is emptied (and the 回忆 page's embeddings key when that page's
address is left empty: the embeddings then go where the chat goes); a key entered before any
address is for the provider chosen next. Where the environment sets the address or the key, the
picker is locked as those fields are.

On the dialog's first opening with no address set (first run), the local servers' ports are
asked in the background (``agent/local_servers.py``); one that answers is offered in a line —
"发现本机的 Ollama（3 个模型）" — with a 使用 button. Nothing is said when none answers. A local
provider chosen that does not answer is said there ("没有找到本机的 llama.cpp") until the address
typed is another server's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QWidget

from sonetto_desktop.config.providers import (
    CUSTOM,
    PROVIDERS,
    Provider,
    by_key,
    local_providers,
    provider_for,
    same_server,
)
from sonetto_desktop.config.settings import OPENAI_DEFAULT_BASE_URL, Settings

from ..i18n import ui_language
from ..widgets.deferred import alive
from ..widgets.owner import Owner
from ..memory_service import call
from ..widgets.tasks import task_scope
from ...ops import Failed
from .fields import mark_env_locked


class ProviderPicker(QObject):
    """Made by the dialog after its 服务地址, API 密钥 and 模型 fields; ``combo`` and ``found`` are
    its two rows (``place`` puts them in the form)."""

    local_servers_found = Signal(object)  # list[LocalServer]: the first-run search's answer
    local_models_listed = Signal(object)  # list[LocalServer]: a chosen local provider's answer
    _dialog = Owner()  # the settings dialog, held weakly (widgets/owner.py)

    def __init__(self, dialog: Any, page: QWidget, providers: Sequence[Provider] = PROVIDERS) -> None:
        super().__init__(page)
        self._dialog = dialog
        self.providers = tuple(providers)
        self._tasks = task_scope(self, "provider-picker")  # the searches: cancelled when the dialog goes
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())
        self._form: QFormLayout | None = None
        self._key_url: str | None = ""  # the address the key in the key field was entered for (None: none yet)
        self._searched = False
        self._env: frozenset[str] = frozenset()  # the fields the environment sets
        self.locked = False
        self.last_found: list[Any] | None = None  # what the first-run search found (LocalServer)
        self._offered: Any = None  # the LocalServer the line offers
        self._missing: Provider | None = None  # the local provider the line says is not running

        self.combo = QComboBox(page)
        self.combo.setObjectName("ProviderPicker")
        self.combo.setPlaceholderText(self.tr("选择服务商…"))
        language = "en" if ui_language() == "en" else "zh"
        for local in (False, True):
            if local and self.combo.count():
                self.combo.insertSeparator(self.combo.count())
            for provider in self.providers:
                if provider.local == local:
                    self.combo.addItem(provider.label(language), provider.key)
        self.combo.insertSeparator(self.combo.count())
        self.combo.addItem(self.tr("自定义"), CUSTOM)
        self.combo.setCurrentIndex(-1)
        self.combo.activated.connect(self._chosen)

        self.found = QWidget(page)  # "发现本机的 Ollama（3 个模型）" [使用]
        self.found.setObjectName("LocalServerRow")
        self.found_label = QLabel(self.found)
        self.found_label.setObjectName("LocalServerFound")
        self.found_label.setWordWrap(True)
        self.use_button = QPushButton(self.tr("使用"), self.found)
        self.use_button.setObjectName("UseLocalServer")
        self.use_button.clicked.connect(self.use_found)
        row = QHBoxLayout(self.found)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.found_label, 1)
        row.addWidget(self.use_button)

        dialog.base_url.textChanged.connect(self._follow_url)
        dialog.api_key.textEdited.connect(self._key_entered)

    def place(self, form: QFormLayout, label: str) -> None:
        """Add the picker's rows to ``form`` (the line under it hidden until it has something to say)."""
        self._form = form
        form.addRow(label, self.combo)
        form.addRow("", self.found)
        form.setRowVisible(self.found, False)

    # ── following the fields ───────────────────────────────────────────

    def load(self, settings: Settings) -> None:
        """The loaded settings: the key in the field is the one entered for their address."""
        self._env = settings.env_overridden
        self._key_url = settings.effective_base_url if settings.api_key.strip() else ""
        self._follow_url(self._dialog.base_url.text())

    def lock(self, variable: str) -> None:
        """The environment sets the address or the key: the picker cannot change them."""
        self.locked = True
        mark_env_locked(self.combo, variable)
        self._say(None)

    def current(self) -> Provider | None:
        return provider_for(self._dialog.base_url.text(), self.providers)

    def _follow_url(self, text: str) -> None:
        provider = provider_for(text, self.providers)
        key = provider.key if provider is not None else CUSTOM if text.strip() else None
        self.combo.setCurrentIndex(self.combo.findData(key) if key is not None else -1)
        if self._missing is not None and provider is not self._missing:  # an address of another server now
            self._say(None)
        field = self._dialog.api_key
        if provider is not None and provider.needs_key:
            field.setPlaceholderText(self.tr("%1 的 API 密钥").replace("%1", provider.name))
        else:
            field.setPlaceholderText(self.tr("本地模型可以留空"))

    def _key_entered(self, *_: Any) -> None:
        """A key typed or pasted is for the address the dialog shows now; with none yet (the first
        run: the key pasted first), for the provider chosen next — it has been sent nowhere."""
        self._key_url = self._dialog.base_url.text().strip() or None  # None: not for any address yet

    def _env_set(self, name: str) -> bool:
        return name in self._env

    # ── choosing ───────────────────────────────────────────────────────

    def _chosen(self, index: int) -> None:
        provider = by_key(self.combo.itemData(index), self.providers)
        if provider is None:  # 自定义: the address is the person's to type
            self._dialog.base_url.setFocus()
            self._dialog.base_url.selectAll()
            return
        typed = self._dialog.base_url.text().strip()
        self.apply(provider, typed if self.current() is provider else provider.base_url, provider.models)
        if provider.local and _loop_running():  # its models are what it has: ask it
            self._tasks.spawn(self.list_models(provider), name="local-models")

    def apply(self, provider: Provider, url: str, models: Sequence[str]) -> None:
        """Use ``provider`` at ``url``: the address, its models offered, the key kept only when it
        was entered for this server."""
        if self.locked:
            return
        dialog = self._dialog
        same_provider = self.current() is provider
        entered_for = self._key_url if self._key_url is not None else dialog.base_url.text().strip()  # typed since
        if dialog.api_key.text().strip() and entered_for and not same_server(url, entered_for):
            dialog.api_key.clear()  # another provider's key is never sent to this one
        recall = getattr(dialog, "recall_page", None)  # its key, with its address empty, goes where the chat goes
        shown = dialog.base_url.text().strip() or OPENAI_DEFAULT_BASE_URL
        if recall is not None and not recall.base_url.text().strip() and not same_server(url, shown):
            recall.api_key.clear()
        self._key_url = url
        dialog.base_url.setText(url)
        self.offer_models(models, keep_typed=same_provider)
        self._say(None)

    def offer_models(self, models: Sequence[str], *, keep_typed: bool = True) -> None:
        """``models`` in the 模型 list; what the person typed stays when it is one of them, else the
        first (with none: what was typed when ``keep_typed``, else nothing)."""
        field = self._dialog.model
        typed = field.currentText().strip()
        field.clear()
        field.addItems(list(models))
        if self._env_set("model"):
            field.setEditText(typed)  # set by the environment: shown as it is
        elif typed and (typed in models or f"{typed}:latest" in models):  # Ollama answers "qwen2.5" for "qwen2.5:latest"
            field.setEditText(typed)
        else:
            field.setEditText(models[0] if models else typed if keep_typed else "")

    async def list_models(self, provider: Provider) -> None:
        """Ask a chosen local provider's server (at each of its addresses) for its models."""
        found = await _ask([(provider.key, url) for url in provider.urls])
        if found is None or not alive(self):  # (None: no loop to ask with)
            return
        self.local_models_listed.emit(found)
        if self.current() is not provider:  # the person went elsewhere meanwhile
            return
        if not found:
            self._say(self.tr("没有找到本机的 %1：请先启动它（或在下面填写它的地址）。").replace("%1", provider.name))
            self._missing = provider
            return
        server = found[0]
        if not same_server(server.base_url, self._dialog.base_url.text()):
            self.apply(provider, server.base_url, server.models)  # it answers at its other address
        else:
            self.offer_models(server.models)

    # ── the first run: servers on this computer ────────────────────────

    def search_on_open(self, settings: Settings) -> None:
        """On the first opening with no address set, look for the servers on this computer."""
        if self._searched or self.locked or settings.base_url.strip() or not local_providers(self.providers):
            return
        if not _loop_running():
            return
        self._searched = True
        self._tasks.spawn(self.search(), name="find-local-servers")

    async def search(self) -> None:
        found = await _ask([(p.key, url) for p, url in local_providers(self.providers)])
        if found is None or not alive(self):  # the dialog was closed meanwhile
            return
        self.last_found = found
        server = found[0] if found else None
        provider = by_key(server.key, self.providers) if server is not None else None
        if server is not None and provider is not None and not self.locked:
            self._offered = server
            if server.models:
                text = self.tr("发现本机的 %1").replace("%1", provider.name) + self.tr("（%Ln 个模型）", "", len(server.models))
            elif server.embeddings:  # (what it has cannot chat: left out of the chat's models)
                text = self.tr("发现本机的 %1，但它只有向量模型，还没有对话模型。").replace("%1", provider.name)
            else:
                text = self.tr("发现本机的 %1，但它还没有模型。").replace("%1", provider.name)
            self._say(text, offer=True)
        self.local_servers_found.emit(found)

    def use_found(self) -> None:
        """使用: the offered server, its address and its models."""
        server = self._offered
        provider = by_key(server.key, self.providers) if server is not None else None
        if provider is not None:
            self._dialog.model.setFocus()  # (the button goes with its line: focus where the choice continues)
            self.apply(provider, server.base_url, server.models)

    def _say(self, text: str | None, *, offer: bool = False) -> None:
        """The line under the picker: ``text`` (None: hidden), with 使用 when it ``offer``s a server."""
        if not offer:
            self._offered = None
        self._missing = None
        self.found_label.setText(text or "")
        self.use_button.setVisible(offer)
        if self._form is not None:
            self._form.setRowVisible(self.found, text is not None)


def _loop_running() -> bool:
    """Whether an event loop runs the dialog (not so for a bare widget: nothing to ask servers with)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _ask(candidates: list[tuple[str, str]]) -> list[Any] | None:
    """The servers among ``candidates`` that answer (``agent/local_servers.py``), asked in a worker;
    None when no event loop runs (a task Qt resumed after its loop stopped: nothing to ask with)."""
    from sonetto_desktop.agent.local_servers import find_local_servers_now

    if not _loop_running():
        return None
    outcome = await call(find_local_servers_now, candidates)
    return [] if isinstance(outcome, Failed) else outcome.value
