"""Colours for the card wall: a stable colour per memory theme, plus the wall's palette tokens.

The shell's ``ui/theme.py`` owns the app-wide light/dark tokens; these are the wall's own tokens
(used by ``resources/qss/wall.qss.tmpl`` and as the card views' defaults until QSS sets them).
Pure Python: no Qt needed.
"""

from __future__ import annotations

import zlib

# Theme stripes: hues chosen to stay distinguishable on both backgrounds.
THEME_PALETTE: dict[str, tuple[str, ...]] = {
    "light": (
        "#d9534f", "#e8893a", "#c9a227", "#5aa545", "#2f9e8f",
        "#3a8fd9", "#5b6ee1", "#8e5bd9", "#c354a8", "#7d8a99",
    ),
    "dark": (
        "#f07a76", "#f5a55f", "#e3c35a", "#7cc96a", "#55c4b4",
        "#66aef0", "#8495f2", "#ac85ef", "#e07cc6", "#9aa7b5",
    ),
}

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


def theme_color(theme: str, mode: str = "light") -> str:
    """The stripe colour (``#rrggbb``) of a memory theme: the same name always gets the same colour,
    in every run (crc32 of the name, not Python's salted ``hash``)."""
    palette = THEME_PALETTE[_mode(mode)]
    return palette[zlib.crc32((theme or "").strip().encode("utf-8")) % len(palette)]


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
