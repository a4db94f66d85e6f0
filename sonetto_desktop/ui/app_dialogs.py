"""AppDialogs: the app's dialogs over the memories and the settings (a part ``SonettoApp`` owns): each opened
window-modal over the current window, deleted when closed, and kept here while open (tests and the
language switch find them here)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QWidget

from sonetto_desktop.aio import TaskScope, import_off_loop

#: What the settings dialog imports (its pages, the MCP server's access and the recall cost among them),
#: and what saving a new language runs (the views made anew in it).
SETTINGS_MODULES = ("sonetto_desktop.ui.settings.dialog", "sonetto_desktop.ui.language_switch")


class AppDialogs:
    """``service``: the UI's operation runner; ``window()`` / ``wall()``: the current window and wall (a
    language switch builds new ones); ``settings()``: the app's settings; ``apply_settings(new)``: what a
    saved settings dialog runs, in ``scope``."""

    def __init__(self, service: Any, *, window: Callable[[], Any], wall: Callable[[], Any],
                 settings: Callable[[], Any], apply_settings: Callable[[Any], Awaitable[None]],
                 scope: TaskScope, embeddings: dict[str, Any] | None = None) -> None:
        self._service = service
        self._embeddings = dict(embeddings or {})  # the services' embeddings options (``builtin``)
        self._window = window
        self._wall = wall
        self._settings = settings
        self._apply_settings = apply_settings
        self._scope = scope
        self.conflicts_dialog: QDialog | None = None
        self.review_dialog: QDialog | None = None
        self.settings_dialog: QDialog | None = None
        self.dont_remember_dialog: QDialog | None = None

    def _open(self, dialog: QDialog, attr: str) -> QDialog:
        """Show ``dialog`` (window-modal, deleted when closed) and keep it as ``self.<attr>``."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        setattr(self, attr, dialog)
        return dialog

    def open_conflicts(self) -> QDialog:
        """Contradictions the daily tidy-up flagged (dialogs/conflicts.py): merge, or keep both."""
        from .dialogs.conflicts import ConflictsDialog

        wall, window = self._wall(), self._window()
        dialog = ConflictsDialog(self._service, lambda a, b: wall.actions.merge_cards(a, b),
                                 window.reveal_memory, window)
        return self._open(dialog, "conflicts_dialog")

    def open_review(self) -> QDialog:
        """Review mode's inbox (dialogs/review.py); the badge follows the inbox on its own."""
        from .dialogs.review import ReviewDialog

        return self._open(ReviewDialog(self._service, self._window()), "review_dialog")

    async def import_settings(self) -> None:
        """The settings dialog's modules and the language switch's, imported in a worker thread (class
        definitions only: no widget is made there), so that the dialog's first opening only makes
        widgets. Imported on the Qt thread at that opening (PySide's import hook reads each new
        module's source), they were ~30-40 ms of the 65-90 ms of CPU it took (issue 37); here they
        add ~0.2 MB to the idle RSS."""
        await import_off_loop(SETTINGS_MODULES)

    def open_settings(self) -> QDialog:
        from .settings.dialog import SettingsDialog

        services = self._service.services
        bank = (lambda: services.recall.listing) if services is not None else None  # the 回忆 page's cost line
        dialog = SettingsDialog(self._settings(), self._window(), bank=bank, find_local_servers=True, **(
            {"builtin": self._embeddings["builtin"]} if "builtin" in self._embeddings else {}))
        apply, scope = self._apply_settings, self._scope
        dialog.settings_saved.connect(lambda new: scope.spawn(apply(new), name="apply-settings"))
        dialog.dont_remember_requested.connect(lambda: self.open_dont_remember(dialog))
        return self._open(dialog, "settings_dialog")

    def open_dont_remember(self, parent: QWidget | None = None) -> QDialog:
        """The don't-remember list (dialogs/dont_remember.py), from the settings' 记忆 tab."""
        from .dialogs.dont_remember import DontRememberDialog

        return self._open(DontRememberDialog(self._service, parent or self._window()), "dont_remember_dialog")
