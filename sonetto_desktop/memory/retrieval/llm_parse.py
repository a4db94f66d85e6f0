"""Turn the recall model's answer into memory indices, as forgivingly as is safe.

The model is asked for a bare JSON array of integers (``[3, 0, 7]``). Real models wrap it in code
fences, put words around it, answer ``{"ids": [...]}``, repeat an index, quote numbers or
invent one past the end of the list. All of that is accepted and cleaned. What is *not* accepted
is an answer with no array at all: that raises :class:`UnparseableAnswer`, so a caller can tell
"the model found nothing relevant" (``[]``) from "the model produced garbage".
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["UnparseableAnswer", "parse_indices"]


class UnparseableAnswer(ValueError):
    """The answer contains no list of indices at all."""

    def __init__(self, text: str) -> None:
        preview = text.strip().replace("\n", " ")
        if len(preview) > 120:
            preview = preview[:117] + "..."
        super().__init__(f"no JSON array of indices in the answer: {preview!r}")
        self.text = text


# Full-width punctuation some models emit inside Chinese answers.
_FULL_WIDTH = str.maketrans({"［": "[", "］": "]", "，": ",", "｛": "{", "｝": "}", "：": ":", "＂": '"'})
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
# A bracketed run of things that look like list items (numbers, quoted numbers, separators).
_LOOSE_ARRAY = re.compile(r"\[([\s\d.,'\"+-]*)\]")
_INT_TEXT = re.compile(r"[+-]?\d+(?:\.0*)?")
# Keys under which a wrapped answer usually keeps its list, most telling first.
_LIST_KEYS = ("indices", "indexes", "index", "ids", "id", "related", "result", "results", "answer", "memories")
_ITEM_KEYS = ("index", "idx", "id", "i")


def parse_indices(text: Any, n: int) -> list[int]:
    """Indices into a list of ``n`` numbered memories, most relevant first.

    Duplicates keep their first position; indices outside ``0..n-1``, booleans and non-integers
    (``2.5``, ``"a"``) are dropped; ``"3"`` and ``2.0`` count as 3 and 2. ``[]`` gives ``[]``.
    Raises :class:`UnparseableAnswer` when no array can be found.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if text is None:
        raise UnparseableAnswer("")
    if not isinstance(text, str):
        text = json.dumps(text) if isinstance(text, (list, dict)) else str(text)
    raw = _find_array(text.translate(_FULL_WIDTH))
    if raw is None:
        raise UnparseableAnswer(text)
    return _clean(raw, n)


def _find_array(text: str) -> list[Any] | None:
    """The list the answer means, or ``None``. Fenced blocks win over the surrounding prose."""
    fenced = [block for block in _FENCE.findall(text) if block.strip()]
    for chunk in fenced or [text]:
        found = _array_in(chunk)
        if found is not None:
            return found
    if fenced:  # a fence with nothing usable: the prose may still carry the answer
        return _array_in(_FENCE.sub(" ", text))
    return None


def _array_in(text: str) -> list[Any] | None:
    stripped = text.strip()
    try:
        whole = json.loads(stripped)
    except (json.JSONDecodeError, ValueError):
        pass
    else:
        found = _list_from_value(whole)
        if found is not None:
            return found
    # Prose around JSON: decode every JSON value that starts at a bracket; the last list wins
    # (models that explain themselves put the answer after the explanation).
    decoder = json.JSONDecoder()
    found: list[Any] | None = None
    pos = 0
    while True:
        starts = [i for i in (text.find("[", pos), text.find("{", pos)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            pos = start + 1
            continue
        candidate = _list_from_value(value)
        if candidate is not None:
            found = candidate
        pos = end
    if found is not None:
        return found
    # Not JSON at all, e.g. ['3', 1] or [1 2 3]: read the last loose bracketed run.
    loose = _LOOSE_ARRAY.findall(text)
    if loose:
        return [token for token in re.split(r"[\s,]+", loose[-1].strip()) if token]
    return None


def _list_from_value(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        if value and all(isinstance(element, list) for element in value):
            return [element for inner in value for element in inner]  # [[1, 2]] -> [1, 2]
        return value
    if isinstance(value, dict):
        lowered = {str(key).lower(): val for key, val in value.items()}
        for key in _LIST_KEYS:
            if isinstance(lowered.get(key), list):
                return _list_from_value(lowered[key])
        for val in value.values():
            found = _list_from_value(val)
            if found is not None:
                return found
    return None


def _clean(raw: list[Any], n: int) -> list[int]:
    seen: set[int] = set()
    result: list[int] = []
    for element in raw:
        index = _as_index(element)
        if index is None or not 0 <= index < n or index in seen:
            continue
        seen.add(index)
        result.append(index)
    return result


def _as_index(element: Any) -> int | None:
    if isinstance(element, bool):
        return None
    if isinstance(element, int):
        return element
    if isinstance(element, float):
        return int(element) if element.is_integer() else None
    if isinstance(element, str):
        token = element.strip().strip("'\"").strip()
        if _INT_TEXT.fullmatch(token):
            return int(float(token))
        return None
    if isinstance(element, dict):
        lowered = {str(key).lower(): val for key, val in element.items()}
        for key in _ITEM_KEYS:
            if key in lowered:
                return _as_index(lowered[key])
    return None
