"""Colours for the card wall: a stable colour per memory theme, plus the wall's palette tokens.

The shell's ``ui/theme.py`` owns the app-wide light/dark tokens; these are the wall's own tokens
(used by ``resources/qss/wall.qss.tmpl`` and as the card views' defaults until QSS sets them).
Pure Python: no Qt needed.
"""

from __future__ import annotations

import zlib

# Theme stripes: 12 hues 30° apart (OKLCH, equal lightness per mode) and 4 deeper (light mode) or
# paler (dark mode) extras between them, each
# with at least 3:1 contrast against the card surface of its mode (WCAG 1.4.11, graphics).
# Slot i of "light" and "dark" is the same colour family.
THEME_PALETTE: dict[str, tuple[str, ...]] = {
    "light": (
        "#c0434c", "#bb5000", "#a46500", "#7c7a00", "#378a21", "#009066",
        "#008d99", "#0082bf", "#3771d1", "#765fca", "#9c4fae", "#b54481",
        "#812e19", "#005f2e", "#005189", "#693375",
    ),
    "dark": (
        "#f98e8f", "#f39762", "#dca744", "#b6b84d", "#83c575", "#43cba4",
        "#00c9d1", "#43c0f3", "#80b1ff", "#b0a2fe", "#d695e4", "#ee8dbd",
        "#ffc8b9", "#b3e6c4", "#b1ddff", "#edc9f5",
    ),
}
PROBE_STEP = 5  # a taken slot: try the one 5 further on (coprime with 16, so far away in hue)

# The wall's own tokens (card surfaces, text, diff colours), per mode.
WALL_TOKENS: dict[str, dict[str, str]] = {
    "light": {
        "card_bg": "#ffffff",
        "card_border": "#e3e1dc",
        "card_text": "#2b2a28",
        "card_muted": "#8a8680",
        "card_selected": "#4a7fd4",
        "card_flash": "#ffd866",
        "diff_del_bg": "#fbe0de",
        "diff_del_fg": "#a3231d",
        "diff_ins_bg": "#dcf3d6",
        "diff_ins_fg": "#1f6b12",
    },
    "dark": {
        "card_bg": "#2b2d31",
        "card_border": "#3c3f45",
        "card_text": "#e6e4df",
        "card_muted": "#9a968f",
        "card_selected": "#6d9cf0",
        "card_flash": "#b8932a",
        "diff_del_bg": "#4d2624",
        "diff_del_fg": "#ffb3ad",
        "diff_ins_bg": "#203d1c",
        "diff_ins_fg": "#b5ecaa",
    },
}


def _mode(mode: str) -> str:
    if mode not in THEME_PALETTE:
        raise ValueError(f"mode must be 'light' or 'dark', not {mode!r}")
    return mode


def preferred_slot(theme: str) -> int:
    """The palette slot a theme asks for first: crc32 of the name (stable in every run, unlike
    Python's salted ``hash``)."""
    return zlib.crc32((theme or "").strip().encode("utf-8")) % len(THEME_PALETTE["light"])


def theme_color(theme: str, mode: str = "light") -> str:
    """The stripe colour (``#rrggbb``) of a theme on its own (no other themes known): its preferred
    slot. The wall uses :class:`ThemeColors`, which keeps the colours of its themes apart."""
    return THEME_PALETTE[_mode(mode)][preferred_slot(theme)]


def wall_tokens(mode: str = "light") -> dict[str, str]:
    """A copy of the wall's tokens for ``mode`` ("light" or "dark")."""
    return dict(WALL_TOKENS[_mode(mode)])


def fill_template(template: str, tokens: dict[str, str]) -> str:
    """Replace ``{{name}}`` placeholders; an unknown placeholder raises KeyError (no silent blanks)."""
    out = template
    for name, value in tokens.items():
        out = out.replace("{{" + name + "}}", value)
    if "{{" in out:
        start = out.index("{{")
        raise KeyError(f"no token for placeholder {out[start:out.index('}}', start) + 2]}")
    return out
