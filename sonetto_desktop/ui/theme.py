"""Light/dark tokens and the app-wide stylesheet built from ``resources/qss/*.qss.tmpl``.

``apply_theme(app, "light" | "dark" | "system")`` fills the templates (the shell's ``app.qss.tmpl``
and, when present, the wall's ``wall.qss.tmpl`` with the wall's tokens) and sets the result on the
QApplication. With "system", :class:`ThemeController` follows ``QStyleHints.colorScheme`` live.
Widgets never hard-code colours; they set object names and dynamic properties.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from sonetto_desktop.resources import resource

from .wall.theme_colors import fill_template, wall_tokens

MODES = ("light", "dark", "system")

TOKENS: dict[str, dict[str, str]] = {
    "light": {
        "window_bg": "#f6f5f2", "sidebar_bg": "#efede8", "panel_bg": "#ffffff", "chat_bg": "#f6f5f2",
        "text": "#2b2a28", "muted": "#8a8680", "border": "#e0ddd6", "hover_bg": "#e7e4de",
        "selection_bg": "#dfe7fb", "accent": "#5b7fe0", "accent_hover": "#4a6dd0",
        "danger": "#d0534d", "warning": "#c98a1a", "disabled_bg": "#c8c6c0",
        "warning_bg": "#fff3cd", "warning_border": "#f0dc9c", "warning_text": "#664d03",
        "user_bubble_bg": "#5b7fe0", "user_bubble_text": "#ffffff", "bubble_bg": "#ffffff",
        "chip_bg": "#f1ecfb", "chip_text": "#5e3fa3", "chip_border": "#ddd0f5",
        "error_bg": "#fdeceb", "error_border": "#f3c3c0", "error_text": "#9d2a24",
        "input_bg": "#ffffff", "button_bg": "#ffffff", "scroll_handle": "#cfccc5",
        "link": "#3d63c9", "code_bg": "#f0eee9",
    },
    "dark": {
        "window_bg": "#1f2023", "sidebar_bg": "#1a1b1e", "panel_bg": "#26282c", "chat_bg": "#1f2023",
        "text": "#e6e4df", "muted": "#9a968f", "border": "#34373c", "hover_bg": "#2e3136",
        "selection_bg": "#2f3a55", "accent": "#6d8ff0", "accent_hover": "#7f9ef5",
        "danger": "#e0645e", "warning": "#e0a540", "disabled_bg": "#45474c",
        "warning_bg": "#3a3220", "warning_border": "#5c4a22", "warning_text": "#f3d48a",
        "user_bubble_bg": "#3f5fb8", "user_bubble_text": "#f4f6ff", "bubble_bg": "#2a2c30",
        "chip_bg": "#2f2840", "chip_text": "#cbb5f5", "chip_border": "#45395e",
        "error_bg": "#3a2423", "error_border": "#5e3330", "error_text": "#ffb3ad",
        "input_bg": "#2a2c30", "button_bg": "#2a2c30", "scroll_handle": "#484b51",
        "link": "#8fb0ff", "code_bg": "#2e3034",
    },
}


def tokens(mode: str) -> dict[str, str]:
    """A copy of the app tokens for "light" or "dark"."""
    if mode not in TOKENS:
        raise ValueError(f"mode must be 'light' or 'dark', not {mode!r}")
    return dict(TOKENS[mode])


def system_mode() -> str:
    """"dark" when the platform reports a dark colour scheme, else "light"."""
    app = QGuiApplication.instance()
    if app is None:
        return "light"
    scheme = QGuiApplication.styleHints().colorScheme()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


def resolve_mode(setting: str) -> str:
    if setting not in MODES:
        raise ValueError(f"theme must be one of {MODES}, not {setting!r}")
    return system_mode() if setting == "system" else setting


def _icon_paths() -> dict[str, str]:
    """QSS ``url()`` needs a file: the bundled icons are real files in a checkout, a wheel and a
    PyInstaller onedir build alike."""
    return {name: Path(str(resource(f"icons/{name}.svg"))).as_posix() for name in ("chevron_down", "chevron_up")}


# The platform's stock OK / Cancel icons (a grey tick on the accent-blue OK, a red cross) are hard
# to see and clash with the theme: dialog buttons are text only, on every platform.
_BUTTON_RULES = "QDialogButtonBox { dialogbuttonbox-buttons-have-icons: 0; }"


def stylesheet(mode: str) -> str:
    """The full application stylesheet for a concrete mode."""
    values = {**tokens(mode), **_icon_paths()}
    parts = [fill_template(resource("qss/app.qss.tmpl").read_text(encoding="utf-8"), values), _BUTTON_RULES]
    wall = resource("qss/wall.qss.tmpl")
    if wall.is_file():
        merged = {**values, **wall_tokens(mode)}
        parts.append(fill_template(wall.read_text(encoding="utf-8"), merged))
    # dialogs and keyboard focus come last: their focus rings win over the plain borders above
    dialogs = resource("qss/dialogs.qss.tmpl")
    if dialogs.is_file():
        parts.append(fill_template(dialogs.read_text(encoding="utf-8"), values))
    return "\n".join(parts)


def palette(mode: str) -> QPalette:
    """The application palette for ``mode``: what Qt draws without a style sheet rule (its own file,
    colour and input dialogs, a file dialog's sidebar, popups) follows the theme too."""
    t = tokens(mode)
    roles = QPalette.ColorRole
    colors = {
        roles.Window: t["window_bg"], roles.WindowText: t["text"], roles.Base: t["panel_bg"],
        roles.AlternateBase: t["sidebar_bg"], roles.Text: t["text"], roles.Button: t["button_bg"],
        roles.ButtonText: t["text"], roles.BrightText: "#ffffff", roles.Highlight: t["accent"],
        roles.HighlightedText: "#ffffff", roles.ToolTipBase: t["panel_bg"], roles.ToolTipText: t["text"],
        roles.PlaceholderText: t["muted"], roles.Link: t["link"], roles.LinkVisited: t["link"],
        roles.Mid: t["border"], roles.Midlight: t["hover_bg"], roles.Dark: t["scroll_handle"],
        roles.Light: t["panel_bg"], roles.Shadow: t["border"],
    }
    result = QPalette()
    for role, value in colors.items():
        result.setColor(role, QColor(value))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        result.setColor(QPalette.ColorGroup.Disabled, role, QColor(t["muted"]))
    return result


class ThemeController(QObject):
    """Applies the chosen theme and, for "system", re-applies it when the platform scheme changes."""

    mode_changed = Signal(str)  # the concrete mode now shown: "light" or "dark"

    def __init__(self, app: QApplication, setting: str = "system", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._app = app
        self._setting = "system"
        self._mode = ""
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_scheme_changed)
        self.set_setting(setting)

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def setting(self) -> str:
        return self._setting

    def set_setting(self, setting: str) -> None:
        mode = resolve_mode(setting)
        self._setting = setting
        self._apply(mode)

    def _apply(self, mode: str) -> None:
        if mode == self._mode:
            return
        self._mode = mode
        self._app.setPalette(palette(mode))
        self._app.setStyleSheet(stylesheet(mode))
        self._app.setProperty("sonetto_theme", mode)
        self.mode_changed.emit(mode)

    def _on_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self._setting == "system":
            self._apply("dark" if scheme == Qt.ColorScheme.Dark else "light")
