"""Colours for the card wall: a stable colour per memory theme, plus the wall's palette tokens.

The shell's ``ui/theme.py`` owns the app-wide light/dark tokens; these are the wall's own tokens
(used by ``resources/qss/wall.qss.tmpl`` and as the card views' defaults until QSS sets them).
Pure Python: no Qt needed.
"""

from __future__ import annotations

import zlib

# Theme stripes: 12 main colours chosen for distance, not in hue order — hue, chroma and lightness
# vary so that any two of them differ by at least 0.12 in OKLab (ΔE) in both modes, which a 10 px
# dot shows plainly (30° hue steps at one lightness were 0.06: 身份 and 地点与路径 looked alike).
# Each has at least 3:1 contrast against the card surface of its mode (WCAG 1.4.11, graphics).
# Slot i of "light" and "dark" is one hue and chroma, lighter in dark mode. Slots 12-15 are for a
# 13th to 16th theme (at least 0.09 from every other colour).
THEME_PALETTE: dict[str, tuple[str, ...]] = {
    "light": (
        "#ac1c0f", "#b46957", "#7e5403", "#9d8d26", "#376e00", "#2da73d",
        "#279ea4", "#0e7397", "#408dea", "#591f97", "#7e5690", "#c64998",
        "#358660", "#ab77ae", "#3b5001", "#7e1945",
    ),
    "dark": (
        "#fa6a57", "#fead98", "#c39553", "#f0e07f", "#77b154", "#6fe276",
        "#40b1b7", "#7bd0f9", "#53a0ff", "#b180fc", "#eabdfe", "#e969b8",
        "#a2f3c7", "#cb95ce", "#b5d088", "#ff8fb4",
    ),
}
MAIN_SLOTS = 12  # the first 12 themes of a wall get these (pairwise distinct); more share the rest
PROBE_STEP = 5  # a taken slot: try the one 5 further on (coprime with 12)

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
    Python's salted ``hash``), among the main slots."""
    return zlib.crc32((theme or "").strip().encode("utf-8")) % MAIN_SLOTS


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
