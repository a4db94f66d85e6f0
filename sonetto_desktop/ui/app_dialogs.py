"""The app's dialogs (a ``SonettoApp`` part): opened window-modal over the current window, deleted
when closed, kept on the app while open (tests and the language switch find them there)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QWidget


class AppDialogs:
    """Needs the app's ``service``, ``settings``, ``window``, ``wall``, ``_tasks`` and ``apply_settings``."""

    def _open(self, dialog: QDialog, attr: str) -> QDialog:
        """Show ``dialog`` (window-modal, deleted when closed) and keep it as ``self.<attr>``."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        setattr(self, attr, dialog)
        return dialog

    def open_conflicts(self):
        """Contradictions the daily tidy-up flagged (ui/conflicts_dialog.py): merge, or keep both."""
        from .dialogs.conflicts import ConflictsDialog

        wall = self.wall
        dialog = ConflictsDialog(self.service, lambda a, b: wall.actions.merge_cards(a, b),
                                 self.window.reveal_memory, self.window)
        return self._open(dialog, "conflicts_dialog")

    def open_review(self):
        """Review mode's inbox (ui/review_dialog.py); the badge follows what is done there."""
        from .dialogs.review import ReviewDialog

        dialog = ReviewDialog(self.service, self.window)  # the badge follows the inbox on its own
        return self._open(dialog, "review_dialog")

    def open_settings(self):
        from .settings.dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self.window)
        dialog.settings_saved.connect(lambda s: self._tasks.spawn(self.apply_settings(s), name="apply-settings"))
        dialog.dont_remember_requested.connect(lambda: self.open_dont_remember(dialog))
        return self._open(dialog, "settings_dialog")

    def open_dont_remember(self, parent: QWidget | None = None):
        """The don't-remember list (ui/dont_remember_dialog.py), from the settings' 记忆 tab."""
        from .dialogs.dont_remember import DontRememberDialog

        return self._open(DontRememberDialog(self.service, parent or self.window), "dont_remember_dialog")
