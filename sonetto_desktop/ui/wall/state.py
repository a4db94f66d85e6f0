"""WallState: what the wall remembers between runs — collapsed themes, density, the outline, and the
themes' colours — in the app's UI-state QSettings (``wall/…`` keys; mappings as JSON text, so theme
names in any script survive the INI format). Without a QSettings it remembers for this run only."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSettings

DENSITIES = ("comfortable", "compact")


class WallState:
    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings
        self._memory: dict[str, Any] = {}

    def _get(self, key: str, default: Any) -> Any:
        if self._settings is None:
            return self._memory.get(key, default)
        return self._settings.value(key, default, type=type(default))

    def _set(self, key: str, value: Any) -> None:
        if self._settings is None:
            self._memory[key] = value
            return
        self._settings.setValue(key, value)
        self._settings.sync()

    def _mapping(self, key: str) -> dict[str, Any]:
        try:
            value = json.loads(self._get(key, "{}") or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def _set_mapping(self, key: str, value: dict[str, Any]) -> None:
        self._set(key, json.dumps(value, ensure_ascii=False, sort_keys=True))

    # ── collapsed themes ──────────────────────────────────────────────

    def collapsed(self) -> set[str]:
        return {t for t, flag in self._mapping("wall/collapsed").items() if flag is True}

    def set_collapsed(self, theme: str, collapsed: bool) -> None:
        mapping = {t: True for t in self.collapsed()}
        if collapsed:
            mapping[theme] = True
        else:
            mapping.pop(theme, None)
        self._set_mapping("wall/collapsed", mapping)

    # ── density and outline ───────────────────────────────────────────

    def density(self) -> str:
        value = self._get("wall/density", "comfortable")
        return value if value in DENSITIES else "comfortable"

    def set_density(self, density: str) -> None:
        if density not in DENSITIES:
            raise ValueError(f"density must be one of {DENSITIES}, not {density!r}")
        self._set("wall/density", density)

    def outline_shown(self) -> bool:
        return bool(self._get("wall/outline", True))

    def set_outline_shown(self, shown: bool) -> None:
        self._set("wall/outline", bool(shown))

    # ── colours ───────────────────────────────────────────────────────

    def color_slots(self) -> dict[str, int]:
        return {t: s for t, s in self._mapping("wall/color_slots").items() if isinstance(s, int)}

    def set_color_slots(self, slots: dict[str, int]) -> None:
        self._set_mapping("wall/color_slots", dict(slots))

    def custom_colors(self) -> dict[str, str]:
        return {t: c for t, c in self._mapping("wall/colors").items() if isinstance(c, str)}

    def set_custom_colors(self, colors: dict[str, str]) -> None:
        self._set_mapping("wall/colors", dict(colors))
