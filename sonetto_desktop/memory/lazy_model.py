"""LazyModel: a chat model built on first use, so the LLM stack (LangChain, the OpenAI client:
about 100 MB of modules) is imported only when a model is really called. No Qt.

The app's services hand the recall and the writer a ``LazyModel`` instead of a model; they call
:func:`resolve` where they need the real one (always off the event loop: building it imports the
stack). ``openai_api_key`` is there so error texts can scrub the key before the model exists.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable


__all__ = ["LazyModel", "loaded_class", "resolve"]


class LazyModel:
    """``build()`` returns the chat model (or ``None``); it runs once, on the first :meth:`get`."""

    def __init__(self, build: Callable[[], Any], *, api_key: str = "") -> None:
        self._build = build
        self._model: Any = None
        self._built = False
        self._lock = threading.Lock()
        self.openai_api_key = api_key

    @property
    def built(self) -> bool:
        return self._built

    def get(self) -> Any:
        with self._lock:
            if not self._built:
                self._model = self._build()  # the first build imports the LLM stack
                self._built = True
            return self._model


def resolve(llm: Any) -> Any:
    """The model itself: ``llm`` unless it is a :class:`LazyModel` (then built now, if not yet)."""
    return llm.get() if isinstance(llm, LazyModel) else llm


def loaded_class(module: str, name: str) -> type | None:
    """``module.name`` if that module is imported and defines it by now, else ``None``: nothing can
    be an instance of a class not yet defined, so an ``isinstance`` check against it needs no import
    (the module may be half-imported on another thread: then the name may be missing yet)."""
    found = getattr(sys.modules.get(module), name, None)
    return found if isinstance(found, type) else None
