"""AppShutdown: the app's ordered shutdown (a ``SonettoApp`` part; the order is in shell.py's docstring):
stop input, cancel the reply, stop the views' workers, drain, close the services and stores, then
hide and delete the windows on the GUI thread. Each step is recorded in ``shutdown_steps``."""

from __future__ import annotations

from .i18n import remove_translators


class AppShutdown:
    """Needs the app's parts (services, views, controller, tray, translators) and ``_tasks`` / ``_closed``."""

    async def shutdown(self) -> None:
        """The ordered shutdown (see the module docstring). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        steps = self.shutdown_steps
        if self.controller is not None:
            self.controller.stop_accepting()
        if self.quick_chat is not None:
            self.quick_chat.hide()
        steps.append("input_stopped")
        await self._tasks.close()  # the UI's scope tree: every window's, dialog's and view's tasks (and applying settings)
        if self.controller is not None:
            await self.controller.close()
        steps.append("reply_cancelled")
        for part in (self.writer_toasts, self.writer_control, self.service):
            if part is not None:
                part.close()
        if self.service is not None:
            await self.service.drain(self.writer_drain_timeout)
        if self.history_imports is not None:  # its writer stops before the store closes
            await self.history_imports.close()
        steps.append("tasks_done")
        if self.services is not None:
            await self.services.close()
            steps.extend(s for s in self.services.shutdown_steps if s.startswith("writer_"))
        steps.append("stores_closed")
        if self.tray is not None:
            self.tray.close()
        steps.append("tray_hidden")
        if self.window is not None:
            self.window.save_state()
            self.window.hide_to_tray = False
            self.window.hide()
            self.window.deleteLater()
        if self.quick_chat is not None:
            self.quick_chat.deleteLater()
        # Qt objects without a parent are deleted here, on the GUI thread.
        for obj in (self.theme, self.tray, self.controller, self.writer_control, self.service):
            if obj is not None:
                obj.deleteLater()
        remove_translators(self.qapp, self._translators)
        self._translators = []
        steps.append("windows_closed")
