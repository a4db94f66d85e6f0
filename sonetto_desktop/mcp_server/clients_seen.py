"""Which apps have connected (the names they gave in the MCP handshake), so the settings page can
show the exact names for the allow list. ``mcp_clients.json`` in the config dir, owner-only, at most
``MAX_CLIENTS`` names (the most recent), written once per app per server run."""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime
from pathlib import Path

from ..config.paths import config_dir
from ..memory.files import atomic_write
from .access import client_label

log = logging.getLogger(__name__)

FILE_NAME = "mcp_clients.json"
MAX_CLIENTS = 20


class ClientsSeen:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / FILE_NAME
        self._recorded: set[str] = set()
        self._lock = threading.Lock()

    def record(self, client: str) -> None:
        """Note that ``client`` connected (blocking; the first call per client only writes)."""
        name = client_label(client)
        with self._lock:
            if name in self._recorded:
                return
            self._recorded.add(name)
            seen = {n: when for n, when in load(self.path)}
            seen[name] = datetime.now().astimezone().isoformat(timespec="seconds")
            recent = sorted(seen.items(), key=lambda pair: pair[1], reverse=True)[:MAX_CLIENTS]
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(self.path, json.dumps({"clients": dict(recent)}, ensure_ascii=False).encode("utf-8"))
            except OSError as exc:  # only a convenience for the settings page: never fail a call for it
                log.warning("could not note the MCP client %r: %s", name, exc)


def load(path: Path | None = None) -> list[tuple[str, str]]:
    """``[(name, last seen ISO time)]``, most recent first; empty when unknown or unreadable."""
    path = path if path is not None else config_dir() / FILE_NAME
    try:
        raw = json.loads(path.read_text(encoding="utf-8")).get("clients", {})
    except (OSError, ValueError, AttributeError):
        return []
    if not isinstance(raw, dict):
        return []
    pairs = [(client_label(name), str(when)) for name, when in raw.items() if isinstance(name, str)]
    return sorted(pairs, key=lambda pair: pair[1], reverse=True)
