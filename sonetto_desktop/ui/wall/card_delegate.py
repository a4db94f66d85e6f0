"""CardDelegate: paints one memory card (no widget per card, so thousands stay cheap).

A compact card has no footer: the count ("3 次") sits at the end of its first line. A card is
sized to its text: as wide as its text on one line (between the density's minimum and
maximum width), wrapped to at most a few lines beyond that; the view then stretches the cards of
a full row to fill it (``ThemeCardView.layout_size``). It has a rounded surface with the
theme's colour stripe on the left, the text (search matches highlighted), and a footer saying how
often Sonetto used the memory, who changed it last (:mod:`wall_filters`) and when, with a lock
sign when it is locked (:mod:`card_lock`; compact cards show the sign beside their count), and a
folded corner when it is pinned (:mod:`card_pin`). A new or changed card glows for a moment
(``CardRole.Flash`` fades from 1 to 0). While a single card is dragged over another, the target
shows its merge zone (``merge_zone``; the whole card for a card of the dragged card's own theme) and,
with the cursor in it, a preview of the merge; while a card is dragged, every other card shows its
zone faintly. Colours
come from the view's ``card*`` properties (set by the shared QSS through ``qproperty-…``) and its
``theme_colors``, never from literals here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from .cards import Card
from .memory_model import CardRole, uses_text
from .search_text import Span, collapse
from .theme_colors import theme_color, wall_tokens
from .card_lock import lock_width, paint_lock
from .card_pin import paint_pin
from .filters import author_label

STRIPE = 4
RADIUS = 8
FOOTER_GAP = 4


@dataclass(frozen=True)
class Density:
    margin: int
    padding: int
    min_width: int
    max_width: int
    max_lines: int
    footer: bool  # a footer line ("用到 N 次", time); compact cards show the count beside the text


DENSITIES = {
    "comfortable": Density(margin=5, padding=10, min_width=150, max_width=320, max_lines=4, footer=True),
    "compact": Density(margin=3, padding=5, min_width=96, max_width=280, max_lines=2, footer=False),
}
BADGE_GAP = 6
AUTHOR_SEP = " · "


def count_text(hits: int) -> str:
    """Compact cards' short form of "用到 N 次" (the tooltip says it in full)."""
    return QCoreApplication.translate("CardDelegate", "{0} 次").format(hits)

_DEFAULTS = {
    "cardBackground": "card_bg",
    "cardBorder": "card_border",
    "cardText": "card_text",
    "cardMuted": "card_muted",
    "cardSelected": "card_selected",
    "cardFlash": "card_flash",
}


def card_colors(widget: QWidget | None) -> dict[str, QColor]:
    """The view's card colours (its ``card*`` properties), falling back to the light tokens."""
    tokens = wall_tokens("light")
    colors: dict[str, QColor] = {}
    for prop, token in _DEFAULTS.items():
        value = widget.property(prop) if widget is not None else None
        colors[prop] = value if isinstance(value, QColor) and value.isValid() else QColor(tokens[token])
    return colors


def wrap_lines(text: str, font: QFont, width: float, max_lines: int) -> list[tuple[int, str]]:
    """``text`` (collapsed) wrapped to ``width``: at most ``max_lines`` lines as (start, text), the
    last elided with "…" when more would follow."""
    metrics = QFontMetricsF(font)
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    lines: list[tuple[int, str]] = []
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(max(1.0, width))
        start, length = line.textStart(), line.textLength()
        if len(lines) == max_lines - 1:
            lines.append((start, metrics.elidedText(text[start:], Qt.TextElideMode.ElideRight, width)))
            break
        lines.append((start, text[start : start + length].rstrip()))
    layout.endLayout()
    return lines or [(0, "")]


def merge_zone(card_rect: QRect | QRectF, density: str = "comfortable") -> QRectF:
    """The part of a card (its item rect) that merges a dropped card into it: a strip on its right
    side, a third of the card at most. The rest of the card, like the rest of the section, moves."""
    d = DENSITIES.get(density, DENSITIES["comfortable"])
    rect = QRectF(card_rect).adjusted(d.margin, d.margin, -d.margin, -d.margin)
    width = max(44.0, min(rect.width() / 3, 96.0))
    return QRectF(rect.right() - width, rect.top(), width, rect.height())


def merge_whole(card_rect: QRect | QRectF, density: str = "comfortable") -> QRectF:
    """The whole card as a merge zone (a card of the dragged card's own theme)."""
    d = DENSITIES.get(density, DENSITIES["comfortable"])
    return QRectF(card_rect).adjusted(d.margin, d.margin, -d.margin, -d.margin)


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
    return small


class CardDelegate(QStyledItemDelegate):
    """Paints cards of a :class:`MemoryCardModel` (or a per-theme list of it).

    Sizes and wrapped lines are cached by (text, width, font, density): text layout is the costly
    part of both a layout pass and a paint.
    """

    CACHE_LIMIT = 20000

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # the view's placed sizes, looked up without going through option.widget (QListView asks
        # for every card's size in each layout: thousands of calls while a big wall loads)
        self._placed = getattr(parent, "layout_size", None)
        self._lines: dict[tuple, list[tuple[int, str]]] = {}
        self._advances: dict[tuple[str, str], float] = {}
        self._chars: dict[str, dict[str, float]] = {}
        self._fonts: dict[int, tuple] = {}
        self._setting: tuple | None = None
        self._natural: dict[tuple[str, int, bool, str], tuple[float, float, float, bool]] = {}

    def clear_cache(self) -> None:
        self._lines.clear()
        self._advances.clear()
        self._natural = {}
        self._setting = None

    @staticmethod
    def _density(widget: QWidget | None) -> tuple[str, Density]:
        name = getattr(widget, "density", "comfortable")
        name = name if isinstance(name, str) and name in DENSITIES else "comfortable"
        return name, DENSITIES[name]

    @staticmethod
    def _available(widget: QWidget | None, d: Density) -> int:
        viewport = getattr(widget, "viewport", None)
        width = viewport().width() - 1 if callable(viewport) else d.max_width
        return max(d.min_width, min(d.max_width, width))

    def _wrapped(self, text: str, font: QFont, width: float, max_lines: int) -> list[tuple[int, str]]:
        key = (text, round(width, 1), font.key(), max_lines)
        lines = self._lines.get(key)
        if lines is None:
            if len(self._lines) >= self.CACHE_LIMIT:
                self._lines.clear()
            lines = self._lines[key] = wrap_lines(text, font, width, max_lines)
        return lines

    def _font_facts(self, font: QFont) -> tuple[str, QFontMetricsF, float, float, QFontMetricsF]:
        """(key, metrics, line spacing, small line height, small metrics) of ``font``, cached."""
        facts = self._fonts.get(id(font))
        if facts is None or facts[5] is not font:
            metrics, small = QFontMetricsF(font), QFontMetricsF(_small(font))
            facts = (font.key(), metrics, metrics.lineSpacing(), small.height(), small, font)
            self._fonts = {id(font): facts}  # one font at a time (the view's)
        return facts[:5]

    def _advance(self, text: str, key: str, metrics: QFontMetricsF) -> float:
        """The width of ``text`` as the sum of its characters' advances (each measured once per
        font): close to the shaped width (no kerning), and ~10x cheaper to get for a new text."""
        found = self._advances.get((text, key))
        if found is None:
            widths = self._chars.setdefault(key, {})
            found = 0.0
            for ch in text:
                w = widths.get(ch)
                if w is None:
                    w = widths[ch] = metrics.horizontalAdvance(ch)
                found += w
            if len(self._advances) >= self.CACHE_LIMIT:
                self._advances.clear()
            self._advances[(text, key)] = found
        return found

    def card_layout(self, cards: list[Card | None], font: QFont, widget: QWidget | None):
        """The cards' natural sizes, and ``height_at(i, width)``: how tall card ``i`` must be at
        another width. Natural: the text on one line if that fits the density's maximum width,
        else as many lines (at most ``max_lines``) as its width needs. Advances are measured once
        per text and count and lines estimated from them, so a layout of thousands of cards does
        no text layout (painting wraps for real, and elides what a card has no room for)."""
        name, d = self._density(widget)
        max_width = self._available(widget, d)
        key, metrics, line_spacing, small_height, small = self._font_facts(font)
        setting = (name, key)  # measurements do not depend on the width
        if self._setting != setting:
            self._setting, self._natural = setting, {}
        natural = self._natural
        chrome = 2 * d.margin + STRIPE + 2 * d.padding
        base = 2 * d.margin + 2 * d.padding + (FOOTER_GAP + small_height if d.footer else 0)
        when = self._advance("00分钟前", "small" + key, small)
        empty = (float(d.min_width), 0.0, 0.0, False)
        facts_of: list[tuple[float, float, float, bool]] = []
        for card in cards:
            if card is None:
                facts_of.append(empty)
                continue
            facts = natural.get((card.description, card.hit, card.locked, card.actor))
            if facts is None:  # measured once per text, count, lock and author
                text = collapse(card.description)
                text_width = self._advance(text, key, metrics)
                lock = lock_width(small_height) if card.locked else 0.0
                if d.footer:
                    author = self._advance(author_label(card.actor) + AUTHOR_SEP, "small" + key, small)
                    footer = self._advance(uses_text(card.hit), "small" + key, small) + when + author + lock + 16
                    badge = 0.0
                else:
                    footer, badge = 0.0, self._advance(count_text(card.hit), "small" + key, small) + BADGE_GAP + lock
                facts = natural[(card.description, card.hit, card.locked, card.actor)] = (
                    max(text_width + badge, footer) + chrome + 2, text_width, badge, " " in text)
            facts_of.append(facts)
        if len(natural) > self.CACHE_LIMIT:
            self._natural = {}

        def height_at(i: int, width: int) -> int:
            _, text_width, badge, spaced = facts_of[i]
            if text_width + badge + chrome + 2 <= width:
                lines = 1
            else:  # an estimate: words that do not fit move whole to the next line
                room = max(1.0, width - chrome - badge)
                lines = min(d.max_lines, math.ceil(text_width * (1.1 if spaced else 1.0) / room))
            return int(base + lines * line_spacing + 0.999)

        sizes = []
        for i, facts in enumerate(facts_of):
            width = int(max(d.min_width, min(max_width, facts[0])))
            sizes.append(QSize(width, height_at(i, width)))
        return sizes, height_at

    def card_size(self, card: Card, font: QFont, widget: QWidget | None) -> QSize:
        """One card's natural size (see ``card_layout``)."""
        return self.card_layout([card], font, widget)[0][0]

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        placed = self._placed
        if placed is None:
            placed = getattr(option.widget, "layout_size", None)
        size = placed(index.row()) if callable(placed) else None
        if size is not None:
            return size  # Qt copies it
        card: Card | None = index.data(CardRole.Card)
        if card is None:
            return QSize(DENSITIES["comfortable"].min_width, 40)
        return self.card_size(card, option.font, option.widget)

    # ── painting ──────────────────────────────────────────────────────

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex):
        card: Card | None = index.data(CardRole.Card)
        if card is None:
            return
        widget = option.widget
        cached = getattr(widget, "card_colors", None)
        colors = cached() if callable(cached) else card_colors(widget)
        dark = colors["cardBackground"].lightness() < 128
        density_name, d = self._density(widget)
        rect = QRectF(option.rect).adjusted(d.margin, d.margin, -d.margin, -d.margin)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        palette = getattr(widget, "theme_colors", None)
        mode = "dark" if dark else "light"
        stripe_color = QColor(palette.color(card.theme, mode) if palette is not None else theme_color(card.theme, mode))

        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        path = QPainterPath()
        path.addRoundedRect(rect, RADIUS, RADIUS)
        painter.fillPath(path, colors["cardBackground"])

        flash = float(index.data(CardRole.Flash) or 0.0)
        if flash > 0:
            glow = QColor(colors["cardFlash"])
            glow.setAlphaF(0.45 * flash)
            painter.fillPath(path, glow)

        border = colors["cardSelected"] if selected else colors["cardBorder"]
        if hovered and not selected:
            border = colors["cardMuted"]
        painter.setPen(QPen(border, 2.0 if selected else 1.0))
        painter.drawPath(path)

        painter.setClipPath(path)
        painter.fillRect(QRectF(rect.left(), rect.top(), STRIPE, rect.height()), stripe_color)
        if card.pinned:
            paint_pin(painter, rect, d.padding + STRIPE + 2, stripe_color)
        painter.setClipping(False)

        font = option.font
        metrics = QFontMetricsF(font)
        small = _small(font)
        small_metrics = QFontMetricsF(small)
        badge = "" if d.footer else count_text(card.hit)
        lock = lock_width(small_metrics.height()) if card.locked else 0.0
        badge_width = small_metrics.horizontalAdvance(badge) + BADGE_GAP + lock if badge else 0.0
        text_left = rect.left() + STRIPE + d.padding
        text_width = rect.right() - d.padding - text_left - badge_width
        spans: list[Span] = index.data(CardRole.Highlights) or []
        mark = QColor(colors["cardFlash"])
        mark.setAlphaF(0.55)
        painter.setFont(font)
        y = rect.top() + d.padding
        room = rect.height() - 2 * d.padding - (FOOTER_GAP + small_metrics.height() if d.footer else 0)
        fit = max(1, min(d.max_lines, int((room + 1) // metrics.lineSpacing())))
        for start, line in self._wrapped(collapse(card.description), font, text_width, fit):
            for span_start, length in spans:
                a, b = max(span_start, start) - start, min(span_start + length, start + len(line)) - start
                if a < b:
                    x0 = text_left + metrics.horizontalAdvance(line[:a])
                    x1 = text_left + min(metrics.horizontalAdvance(line[:b]), text_width)
                    painter.fillRect(QRectF(x0, y, x1 - x0, metrics.lineSpacing()), mark)
            painter.setPen(colors["cardText"])
            painter.drawText(QPointF(text_left, y + metrics.ascent()), line)
            y += metrics.lineSpacing()

        painter.setFont(small)
        painter.setPen(colors["cardMuted"])
        if d.footer:
            baseline = rect.bottom() - d.padding - small_metrics.descent() + 1
            painter.drawText(QPointF(text_left, baseline), uses_text(card.hit))
            when = str(index.data(CardRole.RelativeTime) or "")  # the model's words, through any proxy
            right = author_label(card.actor) + AUTHOR_SEP + when  # who changed it last, and when
            x = rect.right() - d.padding - small_metrics.horizontalAdvance(right)
            painter.drawText(QPointF(x, baseline), right)
            if card.locked:
                paint_lock(painter, x - lock, baseline - small_metrics.descent(), small_metrics.height(),
                           colors["cardMuted"])
        else:  # compact: the count (and the lock) at the end of the first line
            baseline = rect.top() + d.padding + metrics.ascent()
            painter.drawText(QPointF(rect.right() - d.padding - badge_width + BADGE_GAP + lock, baseline), badge)
            if card.locked:
                paint_lock(painter, rect.right() - d.padding - badge_width + BADGE_GAP, baseline,
                           small_metrics.height(), colors["cardMuted"])

        hint = getattr(widget, "drop_hint", None)
        if hint is not None and hint.target == card.id:
            self._paint_merge_zone(painter, option.rect, density_name, colors, hint, small)
        else:
            dragging = getattr(widget, "dragging", None)
            if dragging is not None and dragging[0] != card.id:  # every card a drop could merge into
                self._paint_merge_zone(painter, option.rect, density_name, colors, None, small, whole=dragging[1])
        painter.restore()

    def _paint_merge_zone(self, painter: QPainter, item_rect: QRect, density: str, colors: dict[str, QColor],
                          hint, small: QFont, *, whole: bool = False) -> None:
        """The zone a drop merges in: strong under the cursor (``hint.merge``), faint on the card
        under the cursor outside it, fainter on every other card while a card is dragged (``hint``
        None). ``whole``: the whole card (the dragged card's own theme)."""
        whole = whole or (hint is not None and hint.whole)
        zone = merge_whole(item_rect, density) if whole else merge_zone(item_rect, density)
        accent = QColor(colors["cardSelected"])
        fill = QColor(accent)
        merging = hint is not None and hint.merge
        fill.setAlphaF(0.28 if merging else 0.08 if hint is not None else 0.05)
        if hint is None:  # only a dashed outline on the other cards, no label: the text stays readable
            path = QPainterPath()
            path.addRoundedRect(zone.adjusted(2, 2, -2, -2), RADIUS - 2, RADIUS - 2)
            painter.fillPath(path, fill)
            painter.setPen(QPen(accent, 1.0, Qt.PenStyle.DashLine))
            painter.drawPath(path)
            return
        if whole:  # the card itself is the zone: its label sits at its right end
            label = QRectF(zone.right() - 60, zone.top(), 56, zone.height())
        else:
            label = zone
        path = QPainterPath()
        path.addRoundedRect(zone.adjusted(2, 2, -2, -2), RADIUS - 2, RADIUS - 2)
        painter.fillPath(path, fill)
        pen = QPen(accent, 1.5, Qt.PenStyle.SolidLine if hint.merge else Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawPath(path)
        painter.setFont(small)
        painter.setPen(colors["cardText"] if hint.merge else accent)
        painter.drawText(label, Qt.AlignmentFlag.AlignCenter, QCoreApplication.translate("CardDelegate", "合并"))
        if hint.merge and hint.preview:  # what the merge adds, under the card
            card_rect = QRectF(item_rect).adjusted(2, 2, -2, -2)
            band = QRectF(card_rect.left() + STRIPE + 4, card_rect.bottom() - 20, label.left() - card_rect.left() - 10, 18)
            veil = QColor(colors["cardBackground"])
            painter.fillRect(band, veil)
            text = "＋ " + collapse(hint.preview)
            painter.setPen(accent)
            painter.drawText(band, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                             QFontMetricsF(small).elidedText(text, Qt.TextElideMode.ElideRight, band.width()))
