"""ThemeColors: the wall's colour for each theme — distinct, stable and readable in both modes.

Each theme gets a palette slot once: its preferred slot (crc32 of the name) unless a theme on the
wall already has it, then the next free slot ``PROBE_STEP`` further on. Slots are remembered (the
wall saves them in its UI state), so a theme keeps its colour when others come and go. A person
may pick their own colour for a theme; it is shown as picked where it is readable and lightened or
darkened just enough (3:1 against the card surface) where it is not. Pure Python.
"""

from __future__ import annotations

import re
from typing import Iterable

from .theme_colors import PROBE_STEP, THEME_PALETTE, WALL_TOKENS, preferred_slot

MIN_CONTRAST = 3.0
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(v))):02x}" for v in rgb)


def luminance(color: str) -> float:
    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in _rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 … 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(color: str, background: str, minimum: float = MIN_CONTRAST) -> str:
    """``color`` itself when it stands out from ``background``; else mixed towards black (on a light
    surface) or white (on a dark one) in small steps until it does."""
    if contrast(color, background) >= minimum:
        return color.lower()
    target = (0, 0, 0) if luminance(background) > 0.18 else (255, 255, 255)
    rgb = _rgb(color)
    for step in range(1, 21):
        t = step / 20
        mixed = _hex(tuple(c + (e - c) * t for c, e in zip(rgb, target, strict=True)))
        if contrast(mixed, background) >= minimum:
            return mixed
    return _hex(target)


def valid_color(color: str) -> bool:
    return bool(_HEX.match(color or ""))


class ThemeColors:
    """Slots and picked colours of the wall's themes (``slots``/``custom`` come from UI state)."""

    def __init__(self, slots: dict[str, int] | None = None, custom: dict[str, str] | None = None) -> None:
        size = len(THEME_PALETTE["light"])
        self.slots: dict[str, int] = {t: int(s) % size for t, s in (slots or {}).items() if isinstance(s, int)}
        self.custom: dict[str, str] = {t: c.lower() for t, c in (custom or {}).items() if valid_color(c)}

    def assign(self, themes: Iterable[str]) -> bool:
        """Give each theme without a slot a free one (free among ``themes``); True if any was given."""
        themes = sorted(set(themes))
        size = len(THEME_PALETTE["light"])
        taken = {self.slots[t] for t in themes if t in self.slots}
        changed = False
        for theme in themes:
            if theme in self.slots:
                continue
            slot = preferred_slot(theme)
            for _ in range(size):
                if slot not in taken:
                    break
                slot = (slot + PROBE_STEP) % size
            else:
                slot = preferred_slot(theme)  # more themes than colours: share the preferred one
            self.slots[theme] = slot
            taken.add(slot)
            changed = True
        return changed

    def slot(self, theme: str) -> int:
        return self.slots.get(theme, preferred_slot(theme))

    def color(self, theme: str, mode: str = "light") -> str:
        """The stripe colour of ``theme`` in ``mode`` ("light" / "dark")."""
        palette = THEME_PALETTE[mode]
        picked = self.custom.get(theme)
        if picked:
            return readable(picked, WALL_TOKENS[mode]["card_bg"])
        return palette[self.slot(theme)]

    def set_custom(self, theme: str, color: str | None) -> None:
        """Use ``color`` (``#rrggbb``) for ``theme``; ``None`` goes back to its palette colour."""
        if color is None:
            self.custom.pop(theme, None)
            return
        if not valid_color(color):
            raise ValueError(f"a colour is #rrggbb, not {color!r}")
        self.custom[theme] = color.lower()
